// What a relay door decides from the request line and headers alone, before it reads a byte of
// the body: the API key (a bogus or disabled key costs the headers only, never a 64 MB read) and
// room in this process's budget of body bytes in flight. Both doors (node.ts, web.ts) use it.
import { env } from "@/lib/env";
import { PLAYGROUND_PATH } from "@/lib/relay/endpoints";
import { newRequestId, RelayError } from "@/lib/relay/errors";
import { bodyTooLarge, type ErrorShape, errorResponse, relayErrorResponse, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { callLogOn, logAnswer } from "@/lib/relay/call/call-log";
import { protocolFor } from "@/lib/relay/inbound";
import { taskErrorShape } from "@/lib/tasks/registry";
import { DRAINING_RETRY_AFTER_SECONDS } from "@/lib/server/drain";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

/**
 * Whether the key is checked before the body is read: every call that can carry a body, except
 * the playground, which authenticates by session (and reads its group from the body).
 */
export function keyedBeforeBody(method: string, path: string): boolean {
  return method !== "GET" && method !== "HEAD" && method !== "OPTIONS" && path !== PLAYGROUND_PATH && path !== `${PLAYGROUND_PATH}/`;
}

/** The caller's protocol's error shape for `method path`; OpenAI's for a path no protocol claims. */
export function shapeFor(method: string, path: string, query?: URLSearchParams): ErrorShape | undefined {
  try {
    return protocolFor(method, path, query) ?? taskErrorShape(method, path);
  } catch {
    return undefined; // a malformed path (bad percent-encoding) is answered in OpenAI's shape
  }
}

/** The answer to a key refused before the body: the RelayError in the caller's shape. */
export function refusalBeforeBody(error: unknown, req: RelayRequest): RelayResponse {
  const requestId = newRequestId();
  const shape = shapeFor(req.method, req.path, req.query);
  if (error instanceof RelayError) {
    if (callLogOn) logAnswer(requestId, req.path, error.status, Date.now(), error.code);
    return relayErrorResponse(error, requestId, shape);
  }
  log.error({ err: error, requestId, path: req.path }, "request failed");
  return errorResponse(500, "服务器内部错误", "new_api_error", "internal_error", requestId, null, shape);
}

/** Seconds a caller refused for a full body budget is asked to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** The answer when this process's bodies in flight would pass RELAY_BODY_BYTES_IN_FLIGHT: 503 with retry-after. */
export function bodyBudgetFull(method: string, path: string, query?: URLSearchParams): RelayResponse {
  const requestId = newRequestId();
  const out = errorResponse(
    503,
    "服务器繁忙，正在读取的请求体过多，请稍后重试",
    "server_busy",
    "body_budget_full",
    requestId,
    null,
    shapeFor(method, path, query),
  );
  out.headers["retry-after"] = String(BUSY_RETRY_AFTER_SECONDS);
  if (callLogOn) logAnswer(requestId, path, 503, Date.now(), "body_budget_full");
  return out;
}

/** The answer to a body over MAX_BODY_BYTES (lib/relay/http.ts), in the caller's protocol, with its log line. */
export function bodyTooLargeFor(method: string, path: string, query?: URLSearchParams): RelayResponse {
  const requestId = newRequestId();
  if (callLogOn) logAnswer(requestId, path, 413, Date.now(), "body_too_large");
  return bodyTooLarge(requestId, shapeFor(method, path, query));
}

/**
 * The answer to a call that arrives while this process drains (SIGTERM, lib/server/drain.ts): 503
 * in the caller's protocol, with retry-after, on a connection that closes after it.
 */
export function drainingRefusal(method: string, path: string, query?: URLSearchParams): RelayResponse {
  const requestId = newRequestId();
  const out = errorResponse(
    503,
    "服务正在停止，请稍后重试",
    "server_busy",
    "shutting_down",
    requestId,
    null,
    shapeFor(method, path, query),
  );
  out.headers["retry-after"] = String(DRAINING_RETRY_AFTER_SECONDS);
  out.headers.connection = "close";
  if (callLogOn) logAnswer(requestId, path, 503, Date.now(), "shutting_down");
  return out;
}

/**
 * Bytes of request bodies this process holds (read or being read), from the moment a body is
 * admitted until its answer ends. One counter per process: every relay worker has its own budget.
 */
let inFlight = 0;

/**
 * Admits `bytes` more of body into the budget, or refuses. A body is refused only while others are
 * in flight: one body up to MAX_BODY_BYTES always gets through, whatever the budget.
 */
export function admitBodyBytes(bytes: number, alreadyHeld: number): boolean {
  if (inFlight + bytes > env.RELAY_BODY_BYTES_IN_FLIGHT && inFlight > alreadyHeld) return false;
  inFlight += bytes;
  return true;
}

/** Returns bytes admitted by admitBodyBytes, when the answer has ended or the client has gone. */
export function releaseBodyBytes(bytes: number): void {
  inFlight -= bytes;
}
