// How Midjourney's routes answer: JSON as midjourney-proxy writes it, and errors in new-api's
// Midjourney shape `{description, type, code}`, code 4 (the request), 5 (the upstream or Qiao) or
// 30 (a 429: too many requests).
import { isObj, type Obj } from "@/lib/obj";
import { RelayError, UPSTREAM_ERROR_TYPE } from "@/lib/relay/errors";
import { type ErrorShape, errorResponse, type RelayRequest, type RelayResponse } from "@/lib/relay/http";

export const MJ_CODE = { requestError: 4, unknownError: 5, tooMany: 30 } as const;

export const midjourneyErrors: ErrorShape = {
  errorBody: (status, message, type, code) => ({
    description: message,
    type,
    code: typeof code === "number" ? code : status === 429 ? MJ_CODE.tooMany : status >= 500 ? MJ_CODE.unknownError : MJ_CODE.requestError,
  }),
};

export function mjJson(status: number, body: unknown, requestId: string): RelayResponse {
  return {
    status,
    headers: { "content-type": "application/json", "x-oneapi-request-id": requestId },
    body: JSON.stringify(body),
  };
}

/** The upstream could not be reached or answered what no proxy answers: code 5. */
export function upstreamFailure(message: string, requestId: string): RelayResponse {
  return errorResponse(502, message, UPSTREAM_ERROR_TYPE, MJ_CODE.unknownError, requestId, null, midjourneyErrors);
}

/** The request's JSON object body (an empty body reads as `{}`). */
export function readJsonObject(req: RelayRequest): Obj {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(req.body).toString("utf8") || "{}");
  } catch {
    throw new RelayError(400, "请求体不是有效的 JSON", { type: "invalid_request_error" });
  }
  if (!isObj(body)) throw new RelayError(400, "请求体应为 JSON 对象", { type: "invalid_request_error" });
  return body;
}
