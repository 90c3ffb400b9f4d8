// Relay error shapes and decisions: the OpenAI error body, request ids, retry and auto-disable
// rules, status-code mapping and upstream error parsing. Pure; the pipeline acts on the answers.
import { INTERNAL_ADDRESS_CODE } from "@/lib/net/ip";
import { ChannelType, type StatusCodeMapping } from "./types";

/** The `type` of errors Qiao raises itself. Kept identical to new-api's for client compatibility. */
export const LOCAL_ERROR_TYPE = "new_api_error";
export const UPSTREAM_ERROR_TYPE = "upstream_error";

export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | number | null;
}
export interface OpenAIErrorBody {
  error: OpenAIErrorObject;
}

/** An error the relay raises (adapter misconfiguration, unsupported mode, bad body…). */
export class RelayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  /** Local errors are never retried on another channel and never disable a channel. */
  readonly local: boolean;
  /** Extra response headers (a 429's `retry-after`). */
  readonly headers: Readonly<Record<string, string>> | null;
  constructor(
    status: number,
    message: string,
    opts: { type?: string; code?: string | null; param?: string | null; local?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "RelayError";
    this.status = status;
    this.type = opts.type ?? LOCAL_ERROR_TYPE;
    this.code = opts.code ?? null;
    this.param = opts.param ?? null;
    this.local = opts.local ?? true;
    this.headers = opts.headers ?? null;
  }
}

/**
 * `{status, body}` for an OpenAI-shaped error. With a request id the message gets
 * " (request id: …)" appended, as every relay error message must.
 */
export function openAIError(
  status: number,
  message: string,
  type: string = LOCAL_ERROR_TYPE,
  code: string | number | null = null,
  param: string | null = null,
  requestId?: string,
): { status: number; body: OpenAIErrorBody } {
  const full = requestId ? `${message} (request id: ${requestId})` : message;
  return { status, body: { error: { message: full, type, param, code } } };
}

/**
 * No enabled channel of the caller's group serves the model (or the model is unknown): a 404, as
 * the vendors answer an unknown model (OpenAI `model_not_found`, Anthropic `not_found_error`,
 * Gemini `NOT_FOUND`). Not a 503: clients read 503 and 529 as "overloaded, retry later", and
 * Claude Code and Gemini CLI then retry a request that can never succeed.
 */
export function noChannelError(group: string, model: string): RelayError {
  return new RelayError(404, `当前分组 ${group} 下对于模型 ${model} 无可用渠道`, {
    type: "invalid_request_error",
    code: "model_not_found",
  });
}

/**
 * Seconds a 429 or 529 answer asks the caller to wait when the upstream named none: long enough
 * for a saturated channel's window to move on, short enough that an agent does not stall (the
 * official SDKs retry after it, capped at 60 s).
 */
export const DEFAULT_RETRY_AFTER_SECONDS = 2;

/**
 * Does this failure say the upstream is overloaded (Anthropic's 529 `overloaded_error`, a 503
 * whose error says overloaded or busy)? Only such failures, on every channel tried, are answered
 * as overloaded; a 503 for any other reason is an API error.
 */
export function isOverloaded(status: number, type: string, code: string | number | null, message = ""): boolean {
  if (status === 529) return true;
  if (status !== 503) return false;
  const said = `${type} ${code ?? ""} ${message}`.toLowerCase();
  return said.includes("overloaded") || said.includes("busy");
}

/** Request ids are minted on the leaf floor, where the console's route wrapper reaches them too. */
export { newRequestId } from "@/lib/net/request-id";

// ---------------------------------------------------------------------------------------------
// Retry and auto-disable
// ---------------------------------------------------------------------------------------------

export interface RetryContext {
  /** The client pinned a channel (`sk-KEY-<channelId>`): never fail over. */
  pinned?: boolean;
  /** The failure happened in Qiao itself (bad request, adapter misconfiguration…). */
  localError?: boolean;
}

/**
 * May the pipeline try another channel after this status? new-api's table (inventory §2.8) with
 * one change: 504 and 524 ARE retried. A gateway timeout says the chosen channel was too slow, not
 * that the request is bad, so another channel is a sensible next step (new-api gave up instead).
 * The status passed here is the one AFTER the channel's status_code_mapping, so an admin can make a
 * 400 retryable by mapping it to 500 (the documented new-api trick).
 *
 * | status                         | retry? |
 * |--------------------------------|--------|
 * | local error, pinned channel    | no     |
 * | 2xx                            | no     |
 * | 429, 307                       | yes    |
 * | 5xx (incl. 504 and 524)        | yes    |
 * | 400                            | only on Anthropic (14) channels |
 * | 408                            | no     |
 * | anything else (401, 403, 404…) | yes    |
 */
export function shouldRetry(status: number, channelType: number, ctx: RetryContext = {}): boolean {
  if (ctx.localError || ctx.pinned) return false;
  if (status >= 200 && status < 300) return false;
  if (status === 429 || status === 307) return true;
  if (status >= 500 && status <= 599) return true;
  if (status === 400) return channelType === ChannelType.Anthropic;
  if (status === 408) return false;
  return true;
}

const DISABLE_CODES = new Set(["invalid_api_key", "account_deactivated", "billing_not_active"]);
const DISABLE_TYPES = new Set(["insufficient_quota", "insufficient_user_quota", "authentication_error", "permission_error", "forbidden"]);
const DISABLE_PREFIXES = [
  "Your credit balance is too low",
  "This organization has been disabled.",
  "You exceeded your current quota",
  "Permission denied",
];
const DISABLE_CONTAINS = [
  "The security token included in the request is invalid",
  "Operation not allowed",
  "Your account is not authorized",
];

/**
 * Does this upstream failure mean the channel's key or account is dead (inventory §2.8 trigger
 * list)? The caller still checks the global switch and the channel's auto_ban, and never asks
 * for local errors. `error` is `parseUpstreamError`'s result or the raw body text.
 */
export function shouldDisableChannel(
  status: number,
  error: Pick<UpstreamError, "type" | "code" | "message"> | string | null | undefined,
  channelType: number,
): boolean {
  if (status === 401) return true;
  if (status === 403 && channelType === ChannelType.Gemini) return true;
  const e = typeof error === "string" ? parseUpstreamError(status, error) : error;
  if (!e) return false;
  if (e.code !== null && e.code !== undefined && DISABLE_CODES.has(String(e.code))) return true;
  if (e.type && DISABLE_TYPES.has(e.type)) return true;
  const msg = e.message ?? "";
  for (const p of DISABLE_PREFIXES) if (msg.startsWith(p)) return true;
  for (const c of DISABLE_CONTAINS) if (msg.includes(c)) return true;
  return false;
}

/**
 * The status the client (and the retry/auto-disable logic) sees after the channel's mapping.
 * Success statuses are never mapped; `parseStatusCodeMapping` already dropped non-error targets.
 */
export function applyStatusCodeMapping(status: number, mapping: StatusCodeMapping | null | undefined): number {
  if (!mapping || (status >= 200 && status < 300)) return status;
  const to = mapping[String(status)];
  return typeof to === "number" && Number.isInteger(to) && to >= 400 && to <= 599 ? to : status;
}

// ---------------------------------------------------------------------------------------------
// Upstream error bodies
// ---------------------------------------------------------------------------------------------

export interface UpstreamError {
  status: number;
  message: string;
  type: string;
  code: string | number | null;
  param: string | null;
}

const MAX_MESSAGE = 1000;

function str(v: unknown): string | null {
  if (typeof v === "string") return v.trim() === "" ? null : v;
  if (v && typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch {
      return null;
    }
  }
  return null;
}

function get(obj: unknown, key: string): unknown {
  return obj && typeof obj === "object" ? (obj as Record<string, unknown>)[key] : undefined;
}

function firstOf(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : undefined;
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s;
}

/** Message, type and code of an upstream error from an already-parsed body, or null if none. */
export function errorFromJson(status: number, body: unknown): UpstreamError | null {
  if (!body || typeof body !== "object") return null;
  const err = get(body, "error");
  if (err && typeof err === "object" && !Array.isArray(err)) {
    const message = str(get(err, "message")) ?? str(get(err, "msg")) ?? `bad response status code ${status}`;
    const type = get(err, "type");
    const code = get(err, "code");
    const param = get(err, "param");
    return {
      status,
      message: clip(message),
      type: typeof type === "string" && type !== "" ? type : UPSTREAM_ERROR_TYPE,
      code: typeof code === "string" || typeof code === "number" ? code : null,
      param: typeof param === "string" ? param : null,
    };
  }
  const message =
    str(err) ??
    str(get(body, "message")) ??
    str(get(body, "msg")) ??
    str(get(body, "err")) ??
    str(get(body, "error_msg")) ??
    str(get(get(body, "header"), "message")) ??
    str(get(get(get(body, "response"), "error"), "message")) ??
    str(get(firstOf(get(body, "errors")), "message")) ??
    str(get(body, "detail"));
  if (message === null) return null;
  const type = get(body, "type");
  const code = get(body, "code");
  return {
    status,
    message: clip(message),
    type: typeof type === "string" && type !== "" ? type : UPSTREAM_ERROR_TYPE,
    code: typeof code === "string" || typeof code === "number" ? code : "bad_response_status_code",
    param: String(status),
  };
}

/**
 * Build an error from a non-2xx upstream answer. OpenAI's `{error:{…}}` is taken as is; other
 * vendors' bodies give the message from `message`, `msg`, `err`, `error_msg`, `header.message`,
 * `response.error.message`, Cloudflare's `errors[0].message` or FastAPI's `detail`. A non-JSON body (an nginx HTML page) yields
 * "bad response status code N", plus the text when it is short plain text.
 */
export function parseUpstreamError(status: number, bodyText: string): UpstreamError {
  const text = bodyText.trim();
  if (text.startsWith("{")) {
    try {
      const e = errorFromJson(status, JSON.parse(text));
      if (e) return e;
    } catch {
      // fall through to the plain-text handling
    }
  }
  let message = `bad response status code ${status}`;
  if (text !== "" && text.length <= 300 && !text.startsWith("<") && !text.startsWith("{")) {
    message += `: ${text}`;
  }
  return { status, message, type: UPSTREAM_ERROR_TYPE, code: "bad_response_status_code", param: String(status) };
}

// ---------------------------------------------------------------------------------------------
// Local network errors: never show the upstream's address to API users.
// ---------------------------------------------------------------------------------------------

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "upstream response timed out",
  UND_ERR_BODY_TIMEOUT: "upstream body timed out",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
  UND_ERR_ABORTED: "request aborted",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate does not match host",
  [INTERNAL_ADDRESS_CODE]: "internal address not allowed for this channel",
};

function errorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    if ((e as { name?: unknown }).name === "TimeoutError") return "ETIMEDOUT";
    if ((e as { name?: unknown }).name === "AbortError") return "UND_ERR_ABORTED";
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * A client-safe description of a failed upstream call (fetch/undici throw messages that carry the
 * upstream host and port): "请求上游地址失败" plus a generic reason and the error code.
 */
export function describeUpstreamNetworkError(err: unknown): { message: string; code: string } {
  const code = errorCode(err) ?? "upstream_request_failed";
  const reason = NETWORK_CODES[code];
  return { message: reason ? `请求上游地址失败: ${reason} (${code})` : "请求上游地址失败", code: "do_request_failed" };
}
