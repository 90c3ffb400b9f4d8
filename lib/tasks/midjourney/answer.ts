// How Midjourney's routes answer: JSON as midjourney-proxy writes it, and errors in new-api's
// Midjourney shape `{description, type, code}`, code 4 (the request), 5 (the upstream or Qiao) or
// 30 (a 429: too many requests).
import { UPSTREAM_ERROR_TYPE } from "@/lib/relay/errors";
import { type ErrorShape, errorResponse, type RelayResponse } from "@/lib/relay/http";

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
