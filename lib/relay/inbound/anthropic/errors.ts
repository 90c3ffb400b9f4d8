// Anthropic's error shape, `{"type":"error","error":{"type":…,"message":…}}`, for every error on
// the Messages paths: answered with the HTTP status, or as a stream's `error` event.
import { isOverloaded } from "@/lib/relay/errors";

export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "timeout_error"
  | "overloaded_error";

/**
 * The HTTP status → Anthropic's error type (docs.claude.com/en/api/errors). A 503 is
 * `overloaded_error` only when the error says so (isOverloaded: an overloaded upstream, a busy
 * relay): Claude Code retries an overloaded answer again and again, so a 503 for any other reason
 * is an `api_error`.
 */
export function errorTypeFor(status: number, type = "", code: string | number | null = null, message = ""): AnthropicErrorType {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
      return isOverloaded(status, type, code, message) ? "overloaded_error" : "api_error";
    case 529:
      return "overloaded_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 400 && status < 500 ? "invalid_request_error" : "api_error";
  }
}

/**
 * A stream that fails after its 200 has no status: the type is read from OpenAI's error object
 * (a timeout, a rate limit, an overloaded upstream), `api_error` otherwise.
 */
export function streamErrorType(type: string, code: string | number | null): AnthropicErrorType {
  const said = `${type} ${code ?? ""}`.toLowerCase();
  if (said.includes("timeout") || said.includes("timed_out")) return "timeout_error";
  if (said.includes("rate_limit")) return "rate_limit_error";
  if (said.includes("overloaded")) return "overloaded_error";
  return "api_error";
}

export function anthropicError(type: AnthropicErrorType, message: string) {
  return { type: "error", error: { type, message } };
}
