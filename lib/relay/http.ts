// The relay core's transport-agnostic request and response. lib/relay/doors/node.ts serves them over
// Node's http (the `npm start` entry); lib/relay/doors/web.ts over web Request/Response (route handlers).
import { formatBytes } from "@/lib/net/body";
import { DEFAULT_RETRY_AFTER_SECONDS, openAIError, RelayError } from "@/lib/relay/errors";
import type { BodySummaryResult } from "@/lib/relay/request/request-body";
import type { RelayMode } from "@/lib/relay/types";

export interface RelayRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/chat/completions". */
  path: string;
  query: URLSearchParams;
  /**
   * The caller's headers by name; `keys` (lower-cased names) lets a passthrough forward a family
   * of headers by prefix (Codex's `x-codex-*`).
   */
  headers: { get(name: string): string | null; keys?(): Iterable<string> };
  body: Uint8Array;
  clientIp: string;
  /**
   * The key's caller (auth.ts's RelayCaller), when the door checked the key from the headers
   * before reading the body (lib/relay/request/before-body.ts): the pipeline uses it rather than checking
   * the key again. Typed loosely: auth.ts sits above this module in the import graph.
   */
  caller?: object;
  /** The client has gone away (its connection closed before the answer ended). */
  readonly gone: boolean;
  /** Calls `callback` once when the client goes away (at once if it has); returns an unsubscribe. */
  onGone(callback: () => void): () => void;
  /**
   * summariseJsonBody of `body` off the event loop (the Node entry's body thread), for a large
   * body. Without it the pipeline summarises in place. `sensitiveWords`: the SensitiveWords
   * option when prompts are checked, else null.
   */
  summariseJsonBody?(mode: RelayMode, defaultModel: string, sensitiveWords: string | null): Promise<BodySummaryResult>;
}

/** Where a streamed body writes: the client's connection, as the transport presents it. */
export interface RelaySink {
  /** False when the client is not taking bytes as fast as they come: wait for `onDrain`. */
  write(chunk: Uint8Array): boolean;
  end(): void;
  /** Called once, the next time the client can take more. */
  onDrain(callback: () => void): void;
}

/**
 * A streamed body. The transport calls `start` once with its sink, and `cancel` if the client
 * goes away before the body has ended.
 */
export interface RelayStreamBody {
  start(sink: RelaySink): void;
  cancel(): void;
}

export type RelayBody = Uint8Array | string | RelayStreamBody | null;

export interface RelayResponse {
  status: number;
  headers: Record<string, string>;
  body: RelayBody;
}

/** Largest request body the relay reads (audio uploads are the big ones). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The answer to a body over MAX_BODY_BYTES, from either entry: OpenAI's shape, or the caller's
 * protocol's when the path names another one (lib/relay/inbound).
 */
export function bodyTooLarge(requestId: string, protocol?: ErrorShape): RelayResponse {
  return errorResponse(
    413,
    `请求体过大（不能超过 ${formatBytes(MAX_BODY_BYTES)}）`,
    "invalid_request_error",
    null,
    requestId,
    null,
    protocol,
  );
}

const JSON_HEADERS = { "content-type": "application/json" };

/** What shapes an error for a caller of another protocol (an InboundProtocol, lib/relay/inbound). */
export interface ErrorShape {
  errorBody(status: number, message: string, type: string, code: string | number | null): unknown;
}

/**
 * An error answer with the request's id: in OpenAI's shape, or in the caller's protocol's
 * (Anthropic, Gemini…) when the call came in through one.
 */
export function errorResponse(
  status: number,
  message: string,
  type: string,
  code: string | number | null,
  requestId: string,
  param: string | null = null,
  protocol?: ErrorShape,
): RelayResponse {
  const { body } = openAIError(status, message, type, code, param, requestId);
  const shaped = protocol ? protocol.errorBody(status, body.error.message, type, code) : body;
  const headers: Record<string, string> = { ...JSON_HEADERS, "x-oneapi-request-id": requestId };
  // Every 429 and 529 says when to come back; whoever knows better (a rate limit's window, the
  // upstream's own retry-after) overwrites it.
  if (status === 429 || status === 529) headers["retry-after"] = String(DEFAULT_RETRY_AFTER_SECONDS);
  return { status, headers, body: JSON.stringify(shaped) };
}

/**
 * The request id's headers on an answer that has one (both doors call it once per answer):
 * `x-oneapi-request-id`, which new-api's clients read, and the same id as `x-request-id`. The
 * id is always the relay's own; a caller's `X-Request-Id` is not taken (docs/logs.md).
 */
export function addRequestIdHeader(headers: Record<string, string>): void {
  const id = headers["x-oneapi-request-id"];
  if (id !== undefined) headers["x-request-id"] = id;
}

/** A RelayError's answer. */
export function relayErrorResponse(e: RelayError, requestId: string, protocol?: ErrorShape): RelayResponse {
  const response = errorResponse(e.status, e.message, e.type, e.code, requestId, e.param, protocol);
  if (e.headers) Object.assign(response.headers, e.headers);
  return response;
}

/** Preflight answer. */
export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-expose-headers": "*",
  "access-control-max-age": "86400",
});

/** What an actual cross-origin response needs (the rest belongs to the preflight). */
export const CORS_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "*",
});

/** A percent-encoded path segment (`/v1/models/{id}`), decoded; malformed encoding is the client's 400. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RelayError(400, "请求路径中的百分号编码无效", { type: "invalid_request_error", code: "invalid_path" });
  }
}
