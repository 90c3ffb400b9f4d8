// What every Suno route answers in: new-api's task envelope `{code, message, data}` for success
// (`code: "success"`) and for errors (the error's code, with the HTTP status of the error).
import { isObj, type Obj } from "@/lib/obj";
import { RelayError } from "@/lib/relay/errors";
import type { ErrorShape, RelayRequest, RelayResponse } from "@/lib/relay/http";

export const sunoErrorShape: ErrorShape = {
  errorBody: (_status, message, type, code) => ({ code: code ?? type, message, data: null }),
};

export const sunoJson = (status: number, body: unknown, requestId: string): RelayResponse => ({
  status,
  headers: { "content-type": "application/json", "x-content-type-options": "nosniff", "x-oneapi-request-id": requestId },
  body: JSON.stringify(body),
});

export const invalidRequest = (message: string, code = "invalid_request") => new RelayError(400, message, { code });

/** Task bodies are a few kilobytes; a bigger one is refused before it is parsed on the event loop. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The request body as a JSON object, or the client's 400. */
export function parseJsonBody(req: RelayRequest): Obj {
  if (req.body.byteLength > MAX_BODY_BYTES) throw new RelayError(413, "请求体过大（不能超过 1 MB）", { code: "invalid_request" });
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength).toString("utf8"));
  } catch {
    throw invalidRequest("请求体不是有效的 JSON");
  }
  if (!isObj(value)) throw invalidRequest("请求体应为 JSON 对象");
  return value;
}

/** A vendor's error text: its `message`, else the start of what it sent. */
export function sunoMessage(message: string | undefined, text: string): string {
  return (message || text).trim().slice(0, 1000);
}
