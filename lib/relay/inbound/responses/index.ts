// OpenAI's Responses API as a caller protocol: `POST /v1/responses`, decoded to the canonical chat
// request (./decode-request.ts), answered as a Response object (./encode-response.ts) or its event
// stream (./encode-stream.ts). Qiao stores nothing: the routes that read stored responses
// (`/v1/responses/{id}`, its input items, cancel, delete) stay OpenAI-shaped 501s (endpoints.ts).
import type { InboundProtocol } from "@/lib/relay/inbound/types";
import { responsesToChat } from "./decode-request";
import { chatToResponse } from "./encode-response";
import { ResponsesStreamEncoder } from "./encode-stream";

export const RESPONSES_PATH = "/v1/responses";

export const responsesProtocol: InboundProtocol = {
  name: "openai-responses",
  match: (method, path) => (method === "POST" && path === RESPONSES_PATH ? { call: {} } : null),
  toCanonical: (body, _route, notes) => responsesToChat(body, notes),
  fromCanonical: (answer, info) => chatToResponse(answer, info),
  streamEncoder: (info) => new ResponsesStreamEncoder(info),
  // The Responses API's errors are chat's: `{error: {message, type, param, code}}`.
  errorBody: (_status, message, type, code) => ({ error: { message, type, param: null, code } }),
};
