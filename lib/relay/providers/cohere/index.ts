// Cohere: chat through the Chat API v2 (`/v2/chat`, OpenAI-like messages and tools, SSE stream),
// rerank through `/v1/rerank`, embeddings through `/v2/embed` (float vectors, base64 on request).
// Bearer key.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { parseJsonObject } from "../../request/json-body";
import type { RelayMode } from "../../types";
import { answerContext, jsonAnswer } from "../convert-shared";
import { chatRequest } from "../flat-chat";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import {
  CohereStream,
  cohereChatToOpenAI,
  cohereEmbedToOpenAI,
  cohereRerankToOpenAI,
  toCohereChat,
  toCohereEmbed,
  toCohereRerank,
} from "./convert";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Cohere];
const supportedModes = new Set<RelayMode>(["chat", "rerank", "embeddings"]);

export const cohere: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: input.stream ? "text/event-stream" : "application/json",
      Authorization: `Bearer ${input.channel.key}`,
    };
    const model = input.upstreamModel;
    if (input.mode === "rerank") {
      const json = input.json ?? parseJsonObject(input.body);
      return {
        method: "POST",
        url: `${base}/v1/rerank`,
        headers,
        body: JSON.stringify(toCohereRerank(json, model)),
        forcedIncludeUsage: false,
        response: { json: (upstream) => jsonAnswer(cohereRerankToOpenAI(upstream, model)) },
      };
    }
    if (input.mode === "embeddings") {
      const json = input.json ?? parseJsonObject(input.body);
      const base64 = json.encoding_format === "base64";
      return {
        method: "POST",
        url: `${base}/v2/embed`,
        headers,
        body: JSON.stringify(toCohereEmbed(json, model)),
        forcedIncludeUsage: false,
        response: { json: (upstream) => jsonAnswer(cohereEmbedToOpenAI(upstream, model, base64)) },
      };
    }
    const { json, messages } = chatRequest(input);
    const ids = answerContext(model);
    const stream = new CohereStream(ids);
    return {
      method: "POST",
      url: `${base}/v2/chat`,
      headers,
      body: JSON.stringify(toCohereChat(json, messages, model, input.stream)),
      forcedIncludeUsage: false,
      response: {
        json: (upstream) => jsonAnswer(cohereChatToOpenAI(upstream, ids)),
        streamEvent: (data) => stream.event(data),
      },
    };
  },
};
