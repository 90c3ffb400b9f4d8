import { z } from "zod";
import { INT_COLUMN_MAX } from "@/lib/db/num";
import { zeroIsOne } from "@/lib/db/paging";

export type Envelope<T> = { success: boolean; message: string; data?: T };

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

export function envelope<T>(data: T, message = "", init?: ResponseInit): Response {
  return new Response(JSON.stringify({ success: true, message, data }), {
    ...init,
    headers: { ...JSON_HEADERS, ...(init?.headers as Record<string, string> | undefined) },
  });
}

/** A success envelope with more fields beside `data` (new-api's `GET /api/pricing` carries group_ratio there). */
export function envelopeWith<T>(data: T, beside: Record<string, unknown>, message = ""): Response {
  return new Response(JSON.stringify({ ...beside, success: true, message, data }), { headers: JSON_HEADERS });
}

export function failure(message: string, status = 400, data?: unknown): Response {
  const body = data === undefined ? { success: false, message } : { success: false, message, data };
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

const emptyToUndefined = (v: unknown) => (v === "" ? undefined : v);
/** A query number that is absent, blank or garbage reads as undefined (the default applies). */
export const queryNumber = z.preprocess(emptyToUndefined, z.coerce.number().optional()).catch(undefined);

export const QUERY_MSG = { timeOutOfRange: "时间超出范围" } as const;

/** A time bound in Unix seconds; empty, malformed or not positive means no bound (0); past an Int column is refused. */
export const queryTime = queryNumber.transform((v, ctx) => {
  if (v === undefined || !Number.isInteger(v) || v <= 0) return 0;
  if (v > INT_COLUMN_MAX) {
    ctx.addIssue({ code: "custom", message: QUERY_MSG.timeOutOfRange });
    return z.NEVER;
  }
  return v;
});

/** `p` and `page_size` for list queries; an explicit page_size=0 asks for the smallest page. */
export const pageQuery = {
  p: queryNumber,
  page_size: queryNumber.transform(zeroIsOne),
};

/**
 * A list page's filters from its URL, each read by the list route's own query schema: a value the
 * route would refuse keeps its default rather than failing the page.
 */
export function filtersFromUrl<S extends z.ZodRawShape, K extends keyof S & string>(
  shape: S,
  defaults: { [P in K]: z.output<S[P]> },
  get: (key: K) => string,
): { [P in K]: z.output<S[P]> } {
  const filters = { ...defaults };
  for (const key of Object.keys(defaults) as K[]) {
    const parsed = z.safeParse(shape[key]!, get(key));
    if (parsed.success) filters[key] = parsed.data as z.output<S[K]>;
  }
  return filters;
}
