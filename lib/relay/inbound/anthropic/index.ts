// Anthropic's Messages API for callers (Claude Code, the official SDKs): `POST /v1/messages` runs
// through the whole pipeline as chat on the canonical body (decode-request.ts), its answers encoded
// back (encode-response.ts, encode-stream.ts); `POST /v1/messages/count_tokens` is answered here with the relay's own
// tokenizer, without an upstream or a charge. Errors on both are Anthropic's shape (errors.ts).
// The key comes in `x-api-key` or `Authorization: Bearer` (lib/relay/memory/key-auth.ts reads both);
// `anthropic-version` and `anthropic-beta` are accepted as they come.
import { nestsTooDeep, tooDeep } from "@/lib/relay/request/json-depth";
import { checkModelAllowed, keyCaller } from "@/lib/relay/memory/key-auth";
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest, RelayResponse } from "@/lib/relay/http";
import type { InboundProtocol } from "@/lib/relay/inbound/types";
import { countJsonPromptTokens } from "@/lib/relay/openai/token-count";
import { decodeMessagesRequest } from "./decode-request";
import { encodeMessage } from "./encode-response";
import { anthropicError, errorTypeFor } from "./errors";
import { AnthropicStreamEncoder } from "./encode-stream";

export const MESSAGES_PATH = "/v1/messages";
export const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

export const anthropicProtocol: InboundProtocol = {
  name: "anthropic",
  match(method, path) {
    if (method !== "POST") return null;
    if (path === MESSAGES_PATH) return { call: {} };
    if (path === COUNT_TOKENS_PATH) return { serve: countTokens };
    return null;
  },
  toCanonical: (body, _route, notes) => decodeMessagesRequest(body, { requireMaxTokens: true }, notes),
  fromCanonical: (answer, info) => encodeMessage(answer, info),
  streamEncoder: (info) => new AnthropicStreamEncoder(info),
  errorBody: (status, message, type, code) => anthropicError(errorTypeFor(status, type, code, message), message),
};

const decoder = new TextDecoder();

/** `{"input_tokens": N}`: the prompt as the relay would count it for billing, tools included. */
async function countTokens(req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const authenticated = keyCaller(req);
  const caller = authenticated instanceof Promise ? await authenticated : authenticated;
  if (nestsTooDeep(req.body)) throw tooDeep();
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(req.body));
  } catch {
    throw new RelayError(400, "请求体不是合法的 JSON", { type: "invalid_request_error", code: "invalid_json" });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RelayError(400, "请求体必须是 JSON 对象", { type: "invalid_request_error", code: "invalid_json" });
  }
  const canonical = decodeMessagesRequest(body as Record<string, unknown>, { requireMaxTokens: false });
  const model = canonical.model as string;
  checkModelAllowed(caller, model);
  const inputTokens = countJsonPromptTokens("chat", canonical, model);
  return {
    status: 200,
    headers: { "content-type": "application/json", "x-oneapi-request-id": requestId },
    body: JSON.stringify({ input_tokens: inputTokens }),
  };
}
