// Anthropic's error shape, `{"type":"error","error":{"type":…,"message":…}}`, for every error on
// the Messages paths: answered with the HTTP status, or as a stream's `error` event.

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

/** The HTTP status → Anthropic's error type (docs.claude.com/en/api/errors). */
export function errorTypeFor(status: number): AnthropicErrorType {
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
