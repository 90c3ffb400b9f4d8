// The one declarative wrapper every /api route handler goes through: authentication and role
// tier, zod validation of query and body, and mapping of thrown errors to the envelope.
import type { z } from "zod";
import { ApiError, isApiError } from "@/lib/errors";
import { envelope, failure } from "@/lib/api/envelope";
import { authenticate, optionalCaller, type Caller } from "@/lib/auth/authenticate";
import type { RoleTier } from "@/lib/auth/roles";
import { env } from "@/lib/env";
import { formatBytes, readBodyWithin } from "@/lib/net/body";
import { newRequestId } from "@/lib/net/request-id";
import { componentLogger } from "@/lib/log";

const log = componentLogger("api");

/** What /api answers about a body it will not read. */
export const API_MSG = {
  notJson: "请求体必须是 JSON（Content-Type: application/json）",
  invalidJson: "请求体不是有效的 JSON",
  tooLarge: (limit: number) => `请求体过大（不能超过 ${formatBytes(limit)}）`,
} as const;

type AuthKind = "public" | "optional" | RoleTier;

type CallerFor<A extends AuthKind> = A extends RoleTier ? Caller : Caller | null;

export type RouteContext<A extends AuthKind, Q, B, P> = {
  caller: CallerFor<A>;
  query: Q;
  body: B;
  params: P;
  req: Request;
};

type Spec<A extends AuthKind, QS extends z.ZodType | undefined, BS extends z.ZodType | undefined, P> = {
  auth: A;
  query?: QS;
  body?: BS;
  handler: (
    ctx: RouteContext<A, QS extends z.ZodType ? z.output<QS> : Record<string, never>, BS extends z.ZodType ? z.output<BS> : undefined, P>,
  ) => Promise<unknown> | unknown;
};

/** A successful answer with a message besides the data. */
export class Ok<T = unknown> {
  constructor(
    readonly data: T,
    readonly message = "",
  ) {}
}
export const ok = <T>(data: T, message = "") => new Ok(data, message);

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "参数错误";
  const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
  return `参数错误：${where}${issue.message}`;
}

/** The raw body of an /api request; 413 when it is over API_MAX_BODY_BYTES. */
export async function readApiBody(req: Request): Promise<Uint8Array> {
  const bytes = await readBodyWithin(req, env.API_MAX_BODY_BYTES);
  if (bytes === null) throw new ApiError(API_MSG.tooLarge(env.API_MAX_BODY_BYTES), 413);
  return bytes;
}

/** The body's media type must say JSON: a cross-site form can send only form types or text/plain. */
function isJson(contentType: string): boolean {
  return contentType.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}

/**
 * The JSON body, under API_MAX_BODY_BYTES. Only an application/json body is read, so no HTML form
 * (urlencoded, multipart, text/plain) can drive an endpoint, e.g. sign a browser in as someone
 * else. An absent body reads as {}.
 */
async function readBody(req: Request): Promise<unknown> {
  const contentType = req.headers.get("content-type");
  if (contentType !== null && !isJson(contentType)) throw new ApiError(API_MSG.notJson, 415);
  const text = new TextDecoder().decode(await readApiBody(req));
  if (!text.trim()) return {};
  if (contentType === null) throw new ApiError(API_MSG.notJson, 415);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(API_MSG.invalidJson, 400);
  }
}

export function route<
  A extends AuthKind,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
  P = Record<string, string>,
>(spec: Spec<A, QS, BS, P>) {
  return async (req: Request, ctx?: { params?: Promise<P> | P }): Promise<Response> => {
    let caller: Caller | null = null;
    try {
      if (spec.auth === "optional") {
        caller = await optionalCaller(req.headers);
      } else if (spec.auth !== "public") {
        caller = await authenticate(req.headers, spec.auth as RoleTier);
      }
      const url = new URL(req.url);
      let query: unknown = {};
      if (spec.query) {
        const parsed = spec.query.safeParse(Object.fromEntries(url.searchParams));
        if (!parsed.success) throw new ApiError(firstIssue(parsed.error), 400);
        query = parsed.data;
      }
      let body: unknown;
      if (spec.body) {
        const parsed = spec.body.safeParse(await readBody(req));
        if (!parsed.success) throw new ApiError(firstIssue(parsed.error), 400);
        body = parsed.data;
      }
      const params = ((await ctx?.params) ?? {}) as P;
      const result = await spec.handler({ caller, query, body, params, req } as never);
      if (result instanceof Response) return result;
      if (result instanceof Ok) return envelope(result.data, result.message);
      return envelope(result ?? null);
    } catch (error) {
      return errorResponse(error, req, caller);
    }
  };
}

/**
 * A thrown error as the envelope. One nobody expected is logged with a new request id, which the
 * answer carries in `x-request-id` for a report to the admin.
 */
export function errorResponse(error: unknown, req?: Request, caller?: Caller | null): Response {
  if (isApiError(error)) return failure(error.message, error.status, error.data);
  const requestId = newRequestId();
  log.error(
    { err: error, requestId, method: req?.method, path: req ? new URL(req.url).pathname : undefined, userId: caller?.id },
    "unhandled error",
  );
  const answer = failure("服务器内部错误，请联系管理员", 500);
  answer.headers.set("x-request-id", requestId);
  return answer;
}
