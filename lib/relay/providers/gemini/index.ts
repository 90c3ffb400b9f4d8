// Google Gemini (type 24): chat through `{base}/{version}/models/{model}:generateContent` (or
// `:streamGenerateContent?alt=sse`), embeddings through `:batchEmbedContents`. The key goes in the
// `x-goog-api-key` header, never in the query (where access logs would keep it). The API version
// is the channel's `other`, v1beta when empty. Vertex AI's Gemini models reuse `geminiChatRequest`.
// Callers of Gemini's own API are served natively (`native.gemini`): their body goes up as sent
// and the answer passes through, read by the same converters for usage and errors. Of their
// headers only PASSTHROUGH_HEADERS go with it: `x-goog-api-client` (the SDK and its version, which
// Google reads to shape answers for known clients, Gemini CLI's google-genai-sdk/1.x among them) and
// `user-agent` (Gemini CLI names itself and its model there). Never the caller's key
// (`x-goog-api-key`, `key=`), never `x-goog-user-project` or other headers that would bill or act
// for another Google project: the channel's credentials are the only ones sent.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import type { UserImage } from "@/lib/net/fetch-url";
import { newRequestId } from "../../errors";
import { withPromptImages } from "../../request/images";
import { parseJsonObject } from "../../request/json-body";
import { countInputTokens } from "../../openai/token-count";
import type { RelayMode } from "../../types";
import { addressOtherOf, baseUrlOf, encodeModelForPath, unsupportedMode } from "../openai-compatible";
import { channelOutputLimit } from "../output-limit";
import type { BuildRequestInput, ProviderAdapter, ResponseConverter, UpstreamRequest } from "../types";
import { toBatchEmbed, toGenerateContent } from "./convert-request";
import { type AnswerContext, GeminiStream, toChatCompletion, toEmbeddingList } from "./convert-response";

const {
  name,
  baseUrl: defaultBaseUrl,
  other: { default: DEFAULT_VERSION },
} = CHANNEL_CATALOG[CHANNEL_TYPES.Gemini];
const MODES: readonly RelayMode[] = ["chat", "embeddings"];
const supportedModes = new Set(MODES);

const JSON_TYPE = "application/json";

/** The model as a path segment: "models/gemini-x" and "gemini-x" name the same model. */
export const modelSegment = (model: string): string => encodeModelForPath(model.replace(/^models\//, ""));

/**
 * A chat request to a Gemini `generateContent` endpoint (Google AI or Vertex): `url` is the model's
 * URL without the method. Async only when the prompt carries images, which are fetched first.
 */
export function geminiChatRequest(
  input: BuildRequestInput,
  modelUrl: string,
  headers: Record<string, string>,
): UpstreamRequest | Promise<UpstreamRequest> {
  // Every image, data: ones included, is read from the fetched map (relayImage decodes those).
  const make = (json: Record<string, unknown>, images?: ReadonlyMap<string, UserImage>): UpstreamRequest => ({
    method: "POST",
    url: input.stream ? `${modelUrl}:streamGenerateContent?alt=sse` : `${modelUrl}:generateContent`,
    headers: { ...headers, "Content-Type": JSON_TYPE, ...(input.stream ? { Accept: "text/event-stream" } : {}) },
    body: JSON.stringify(toGenerateContent(json, images, input.upstreamModel, channelOutputLimit(input.channel, input.upstreamModel))),
    // Gemini reports its usage on the last event, which the relay bills (it rides on the last chunk).
    forcedIncludeUsage: input.stream,
    response: geminiResponseConverter(input.upstreamModel),
  });
  return withPromptImages(input, make, { withData: true });
}

/** Reads Gemini's answer (whole, or `alt=sse` events) into OpenAI's shapes; made per call. */
export function geminiResponseConverter(model: string): ResponseConverter {
  const ctx: AnswerContext = { id: `chatcmpl-${newRequestId()}`, created: Math.floor(Date.now() / 1000), model };
  const stream = new GeminiStream(ctx);
  return {
    json: (upstream) => ({ body: JSON.stringify(toChatCompletion(upstream, ctx)), contentType: JSON_TYPE }),
    streamEvent: (data) => stream.event(data),
  };
}

/**
 * A Gemini caller's own request (lib/relay/inbound/gemini) to a `generateContent` endpoint (Google
 * AI or Vertex): the body goes up as it came (the model is in the URL), the answer passes through.
 * Null for `streamGenerateContent` without `alt=sse`, whose one JSON array the relay cannot read
 * as it streams: that call is converted, and the protocol's encoder writes the array.
 */
/** The caller's headers a passed-through Gemini request keeps (see the header of this file). */
export const PASSTHROUGH_HEADERS = ["x-goog-api-client", "user-agent"] as const;

export function geminiPassthrough(input: BuildRequestInput, modelUrl: string, auth: Record<string, string>): UpstreamRequest | null {
  if (input.callerRoute?.variant !== undefined) return null;
  const headers: Record<string, string> = {};
  for (const header of PASSTHROUGH_HEADERS) {
    const value = input.callerHeaders?.get(header);
    if (value) headers[header] = value;
  }
  // The channel's credentials and the body's type last: nothing the caller sent replaces them.
  Object.assign(headers, auth, { "Content-Type": JSON_TYPE });
  if (input.stream) headers.Accept = "text/event-stream";
  return {
    method: "POST",
    url: input.stream ? `${modelUrl}:streamGenerateContent?alt=sse` : `${modelUrl}:generateContent`,
    headers,
    body: input.body,
    forcedIncludeUsage: false,
    response: geminiResponseConverter(input.upstreamModel),
    passthrough: true,
  };
}

function embeddingsRequest(input: BuildRequestInput, base: string, version: string): UpstreamRequest {
  const json = input.json ?? parseJsonObject(input.body);
  const model = modelSegment(input.upstreamModel);
  const body = toBatchEmbed(json, `models/${input.upstreamModel.replace(/^models\//, "")}`);
  // batchEmbedContents reports no usage: the answer carries the local count, which is what is billed.
  const promptTokens = countInputTokens(json.input, input.upstreamModel);
  const base64 = json.encoding_format === "base64";
  return {
    method: "POST",
    url: `${base}/${version}/models/${model}:batchEmbedContents`,
    headers: { "Content-Type": JSON_TYPE, "x-goog-api-key": input.channel.key },
    body: JSON.stringify(body),
    forcedIncludeUsage: false,
    response: {
      json: (upstream) => ({
        body: JSON.stringify(toEmbeddingList(upstream, input.upstreamModel, promptTokens, base64)),
        contentType: JSON_TYPE,
      }),
    },
  };
}

export const gemini: ProviderAdapter = {
  supportedModes,
  buildRequest(input) {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const version = addressOtherOf(input, name, DEFAULT_VERSION);
    if (input.mode === "embeddings") return embeddingsRequest(input, base, version);
    const modelUrl = `${base}/${version}/models/${modelSegment(input.upstreamModel)}`;
    return geminiChatRequest(input, modelUrl, { "x-goog-api-key": input.channel.key });
  },
  native: {
    gemini(input) {
      const base = baseUrlOf(input, defaultBaseUrl, name);
      const version = addressOtherOf(input, name, DEFAULT_VERSION);
      return geminiPassthrough(input, `${base}/${version}/models/${modelSegment(input.upstreamModel)}`, {
        "x-goog-api-key": input.channel.key,
      });
    },
  },
};
