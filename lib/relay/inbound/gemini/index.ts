// Google's Gemini API (generativelanguage, v1beta) served to callers:
//   POST /v1beta/models/{model}:generateContent        a whole answer
//   POST /v1beta/models/{model}:streamGenerateContent  with ?alt=sse: GenerateContentResponse events;
//        without it Google streams one JSON array: here the array comes whole, at the end
//   POST /v1beta/models/{model}:countTokens            a local count, free
//   GET  /v1beta/models, /v1beta/models/{model}        the models the key may call
// (and the same under /v1). The key comes in `x-goog-api-key` or `?key=` (auth.ts readKey).
import { RelayError } from "@/lib/relay/errors";
import { decodePathSegment } from "@/lib/relay/http";
import type { InboundMatch, InboundProtocol } from "@/lib/relay/inbound/types";
import { bareModel, decodeGenerateContent } from "./decode-request";
import { encodeWhole, geminiError } from "./encode-response";
import { GeminiStreamEncoder } from "./encode-stream";
import { serveCountTokens, serveModel, serveModelList } from "./serve";

/** `/v1beta/models/{model}:{method}`; the method follows the last colon (model names may hold one). */
const METHOD_PATH = /^\/v1(?:beta)?\/models\/(.+):(generateContent|streamGenerateContent|countTokens)$/;
const LIST_PATH = /^\/v1(?:beta)?\/models$/;
const MODEL_PATH = /^\/v1(?:beta)?\/models\/([^:]+)$/;

/** The answer of a streamGenerateContent call made without `alt=sse`. */
const JSON_ARRAY = "json-array";

export const gemini: InboundProtocol = {
  name: "gemini",

  match(method, path, query) {
    try {
      return matchPath(method, path, query);
    } catch (error) {
      // A malformed path (bad percent-encoding) is still this protocol's: refused in its shape.
      if (error instanceof RelayError) return { serve: () => Promise.reject(error) };
      throw error;
    }
  },

  toCanonical: (body, route, notes) => decodeGenerateContent(body, route, notes),

  fromCanonical(answer, info) {
    const response = encodeWhole(answer, info);
    return info.route?.variant === JSON_ARRAY ? [response] : response;
  },

  streamEncoder: (info) => new GeminiStreamEncoder(info),

  errorBody: (status, message) => geminiError(status, message),
};

function matchPath(method: string, raw: string, query: URLSearchParams): InboundMatch | null {
  // Some clients percent-encode the colon before the method.
  const path = raw.includes("%3") ? raw.replace(/%3a/gi, ":") : raw;
  // OpenAI owns /v1/models: only /v1beta lists models in Gemini's shape.
  if (method === "GET" && LIST_PATH.test(path) && path.startsWith("/v1beta/")) {
    return { serve: (req, requestId) => serveModelList(req, requestId) };
  }
  const one = method === "GET" && path.startsWith("/v1beta/") ? MODEL_PATH.exec(path) : null;
  if (one) {
    const model = bareModel(decodePathSegment(one[1]!));
    return { serve: (req, requestId) => serveModel(req, model, requestId) };
  }
  const m = method === "POST" ? METHOD_PATH.exec(path) : null;
  if (!m) {
    // The rest of /v1beta is Google's too (embedContent, files, caches…): not served, said in its shape.
    if (path.startsWith("/v1beta/") || path === "/v1beta") {
      return { serve: () => Promise.reject(new RelayError(404, `Invalid URL (${method} ${path})`, { code: "not_found" })) };
    }
    return null;
  }
  const model = bareModel(decodePathSegment(m[1]!));
  switch (m[2]) {
    case "countTokens":
      return { serve: (req, requestId) => serveCountTokens(req, model, requestId) };
    case "streamGenerateContent":
      return query.get("alt") === "sse" ? { call: { model, stream: true } } : { call: { model, stream: false, variant: JSON_ARRAY } };
    default:
      return { call: { model, stream: false } };
  }
}
