import { z } from "zod";
import { badRequest } from "@/lib/errors";
import { INT_COLUMN_MAX } from "@/lib/db/num";

export type Envelope<T> = { success: boolean; message: string; data?: T };

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

export function envelope<T>(data: T, message = "", init?: ResponseInit): Response {
  return new Response(JSON.stringify({ success: true, message, data }), {
    ...init,
    headers: { ...JSON_HEADERS, ...(init?.headers as Record<string, string> | undefined) },
  });
}

/** A success envelope with more fields beside `data` (new-api's `GET /api/pricing` carries group_ratio there). */
export function envelopeWith<T>(data: T, beside: Record<string, unknown>): Response {
  return new Response(JSON.stringify({ ...beside, success: true, message: "", data }), { headers: JSON_HEADERS });
}

export function failure(message: string, status = 400): Response {
  return new Response(JSON.stringify({ success: false, message }), { status, headers: JSON_HEADERS });
}

export const PAGE_MSG = { outOfRange: "页码超出范围" } as const;

/**
 * Clamped paging of spec §7: pages start at p=0; page_size is 1–100, 10 by default. A page that
 * starts past any possible row (ids are Int columns) is refused rather than sent to the database,
 * which cannot take such an offset.
 */
export function paging(p: unknown, pageSize: unknown): { page: number; pageSize: number; skip: number } {
  const page = Math.max(0, Math.floor(Number(p)) || 0);
  const size = Math.min(100, Math.max(1, Math.floor(Number(pageSize)) || 10));
  const skip = page * size;
  if (skip > INT_COLUMN_MAX) throw badRequest(PAGE_MSG.outOfRange);
  return { page, pageSize: size, skip };
}

const emptyToUndefined = (v: unknown) => (v === "" ? undefined : v);
/** A query number that is absent, blank or garbage reads as undefined (the default applies). */
export const queryNumber = z.preprocess(emptyToUndefined, z.coerce.number().optional()).catch(undefined);

/** `p` and `page_size` for list queries; an explicit page_size=0 asks for the smallest page. */
export const pageQuery = {
  p: queryNumber,
  page_size: queryNumber.transform((v) => (v === 0 ? 1 : v)),
};
