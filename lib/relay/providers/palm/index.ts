// Google PaLM2 (type 11), the legacy `{base}/v1beta2/models/{model}:generateMessage` API. The key
// goes in the `x-goog-api-key` header (new-api's choice; Google accepts it like `?key=`, and a
// header stays out of access logs). The catalogue's model name "PaLM-2" stands for
// chat-bison-001, the only chat model the API served; other names are sent as they are.
//
// - system messages → `prompt.context`; the other messages → `prompt.messages`, author "0" for
//   the user and "1" for the assistant (the convention of Google's examples).
// - temperature, top_p, top_k, n → temperature, topP, topK, candidateCount.
// - A candidate-less answer with `filters` is the content filter's: finish_reason content_filter.
// - PaLM reports no usage: prompt and completion tokens are counted here, the way the relay
//   counts a stream that reports none.
// - generateMessage cannot stream. A stream request is sent as a whole one and its answer is
//   relayed as one stream (the whole text in one chunk, then the usage), so a streaming client
//   works; it just sees no tokens before the end.
import { isObj, type Obj } from "@/lib/obj";
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { newRequestId, RelayError } from "../../errors";
import { parseJsonObject } from "../../request/json-body";
import { countChatPromptTokens, countCompletionTokens } from "../../openai/token-count";
import type { RelayMode } from "../../types";
import { errorOf } from "../gemini/convert-response";
import { baseUrlOf, encodeModelForPath, unsupportedMode } from "../openai-compatible";
import { completionOf, openAIUsage } from "../convert-shared";
import { readGenerateMessage } from "./api";
import type { ProviderAdapter, StreamFraming } from "../types";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.PaLM];
const MODES: readonly RelayMode[] = ["chat"];
const supportedModes = new Set(MODES);
const JSON_TYPE = "application/json";

const upstreamModelName = (model: string) => (model === "PaLM-2" ? "chat-bison-001" : model.replace(/^models\//, ""));

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join("");
}

/** An OpenAI chat body → a `GenerateMessageRequest`. */
export function toGenerateMessage(json: Obj): Obj {
  const context: string[] = [];
  const messages: Obj[] = [];
  for (const m of Array.isArray(json.messages) ? json.messages : []) {
    if (!isObj(m)) continue;
    const content = textOf(m.content);
    if (m.role === "system" || m.role === "developer") context.push(content);
    else messages.push({ author: m.role === "assistant" ? "1" : "0", content });
  }
  if (messages.length === 0) {
    throw new RelayError(400, "messages hold no user or assistant content", {
      type: "invalid_request_error",
      code: "invalid_request",
      param: "messages",
    });
  }
  const prompt: Obj = { messages };
  if (context.length > 0) prompt.context = context.join("\n");
  const body: Obj = { prompt };
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  if (num(json.temperature)) body.temperature = json.temperature;
  if (num(json.top_p)) body.topP = json.top_p;
  if (num(json.top_k)) body.topK = json.top_k;
  if (num(json.n)) body.candidateCount = json.n;
  return body;
}

interface PalmContext {
  id: string;
  created: number;
  model: string;
  promptTokens: number;
}

/** A `GenerateMessageResponse` → the choices and the locally counted usage. */
function read(upstream: unknown, ctx: PalmContext): { choices: { index: number; text: string; finish: string }[]; usage: Obj } {
  const u = readGenerateMessage(upstream);
  const candidates = u.candidates.filter((c) => c !== null);
  const choices = candidates.map((c, index) => ({ index, text: c.content, finish: "stop" }));
  if (choices.length === 0) {
    const filtered = u.filters.length > 0;
    choices.push({ index: 0, text: "", finish: filtered ? "content_filter" : "stop" });
  }
  const completion = choices.reduce((n, c) => n + (c.text === "" ? 0 : countCompletionTokens(c.text, 0, ctx.model)), 0);
  return {
    choices,
    usage: openAIUsage(ctx.promptTokens, completion),
  };
}

export function toChatCompletion(upstream: unknown, ctx: PalmContext): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  const { choices, usage } = read(upstream, ctx);
  return completionOf(
    ctx,
    "chat.completion",
    choices.map((c) => ({ index: c.index, message: { role: "assistant", content: c.text }, logprobs: null, finish_reason: c.finish })),
    usage,
  );
}

export function toChatChunk(upstream: unknown, ctx: PalmContext): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  const { choices, usage } = read(upstream, ctx);
  return completionOf(
    ctx,
    "chat.completion.chunk",
    choices.map((c) => ({ index: c.index, delta: { role: "assistant", content: c.text }, logprobs: null, finish_reason: c.finish })),
    usage,
  );
}

/** The whole JSON answer, collected, as one event at the end. */
function wholeBodyAsOneEvent(): StreamFraming {
  const chunks: Buffer[] = [];
  return {
    push(chunk) {
      chunks.push(Buffer.from(chunk));
    },
    end(out) {
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (text === "") return;
      try {
        out.event(JSON.stringify(JSON.parse(text)));
      } catch {
        out.event(JSON.stringify({ error: { message: "PaLM answered something that is not JSON", status: "upstream_error" } }));
      }
    },
  };
}

export const palm: ProviderAdapter = {
  supportedModes,
  buildRequest(input) {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const json = input.json ?? parseJsonObject(input.body);
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const model = upstreamModelName(input.upstreamModel);
    const ctx: PalmContext = {
      id: `chatcmpl-${newRequestId()}`,
      created: Math.floor(Date.now() / 1000),
      model: input.upstreamModel,
      promptTokens: countChatPromptTokens(json, input.upstreamModel),
    };
    return {
      method: "POST",
      url: `${base}/v1beta2/models/${encodeModelForPath(model)}:generateMessage`,
      headers: { "Content-Type": JSON_TYPE, Accept: JSON_TYPE, "x-goog-api-key": input.channel.key },
      body: JSON.stringify(toGenerateMessage(json)),
      forcedIncludeUsage: input.stream,
      response: {
        json: (upstream) => ({ body: JSON.stringify(toChatCompletion(upstream, ctx)), contentType: JSON_TYPE }),
        streamEvent: (data) => toChatChunk(data, ctx),
      },
      ...(input.stream ? { framing: wholeBodyAsOneEvent() } : {}),
    };
  },
};
