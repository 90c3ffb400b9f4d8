// Pieces shared by the adapters that convert the canonical (OpenAI chat) request into a vendor's
// own protocol and its answers back: reading the canonical messages, writing OpenAI answers,
// chunks and errors, and the stream framing for vendors that answer a stream request with a
// bare JSON error. Pure.
import { randomUUID } from "node:crypto";
import { isObj, type Obj } from "@/lib/obj";
import { RelayError } from "../errors";
import { parseJsonObject } from "../request/json-body";
import { withinOutputLimit } from "./output-limit";
import type { BuildRequestInput, StreamFraming } from "./types";

export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The canonical request body (the pipeline's parsed JSON, else the raw bytes parsed), its output cap within the model's limit on the channel. */
export function canonicalBody(input: BuildRequestInput): Obj {
  return withinOutputLimit(input.json ?? parseJsonObject(input.body), input.channel, input.upstreamModel);
}

/** A message's text: a string, or the text parts of a content array joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content) if (isObj(part) && part.type === "text" && typeof part.text === "string") out += part.text;
  return out;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * The request's messages as plain text turns. `tool`/`function` results are sent as user turns
 * (these vendors have no tool role in the protocols served here); an empty list is the caller's
 * fault.
 */
export function plainMessages(body: Obj): ChatMessage[] {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new RelayError(400, "messages must be a non-empty array", {
      type: "invalid_request_error",
      code: "invalid_messages",
      param: "messages",
    });
  }
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (!isObj(m)) continue;
    const role = m.role === "system" || m.role === "developer" ? "system" : m.role === "assistant" ? "assistant" : "user";
    out.push({ role, content: textOf(m.content) });
  }
  return out;
}

/**
 * System text pulled out, and the rest made to alternate user/assistant starting with user
 * (consecutive turns of one role merged with a blank line; assistant turns before the first user
 * turn, a chat UI's greeting, dropped): what Baidu, Zhipu v3 and Hunyuan require.
 */
export function alternatingTurns(messages: ChatMessage[]): { system: string; turns: ChatMessage[] } {
  const system: string[] = [];
  const turns: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role === "system") {
      system.push(m.content);
      continue;
    }
    const last = turns.at(-1);
    if (last && last.role === m.role) last.content = `${last.content}\n\n${m.content}`;
    else if (!last && m.role === "assistant") continue;
    else turns.push({ ...m });
  }
  if (turns.length === 0 || turns.at(-1)!.role !== "user") {
    throw new RelayError(400, "the conversation must end with a user message", {
      type: "invalid_request_error",
      code: "invalid_messages",
      param: "messages",
    });
  }
  return { system: system.join("\n"), turns };
}

/** Clamp into the open interval (lo, hi) by `eps`; undefined stays undefined. */
export function clampOpen(v: number | undefined, lo: number, hi: number, eps = 0.01): number | undefined {
  if (v === undefined) return undefined;
  if (v <= lo) return lo + eps;
  if (v >= hi) return hi - eps;
  return v;
}

/** `stop` as a list of strings (OpenAI allows a string or an array). */
export function stopList(v: unknown): string[] | undefined {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) {
    const out = v.filter((s): s is string => typeof s === "string");
    return out.length ? out : undefined;
  }
  return undefined;
}

/** Ids, creation time and model of the answer being converted (made per call). */
export interface AnswerContext {
  id: string;
  created: number;
  model: string;
  /** Each choice carries `logprobs: null`, as OpenAI's own answers do (the Claude and PaLM converters). */
  logprobs?: boolean;
}

export function answerContext(model: string, id?: string): AnswerContext {
  return { id: id || `chatcmpl-${randomUUID().replaceAll("-", "")}`, created: Math.floor(Date.now() / 1000), model };
}

// The one builder of OpenAI's `usage`, re-exported for the adapters that import it from here.
export { openAIUsage } from "../openai/usage";

/**
 * A `chat.completion`: one choice with its text, or its whole message (tool calls, reasoning…;
 * `role` is put first), or several choices (`choices`, each with its own index). The keys keep
 * OpenAI's order: answers are compared byte for byte.
 */
export function chatCompletion(ctx: AnswerContext, content: string | Obj, finishReason: string, usage?: Obj | null): Obj {
  const message = typeof content === "string" ? { role: "assistant", content } : { role: "assistant", ...content };
  const choice = ctx.logprobs
    ? { index: 0, message, logprobs: null, finish_reason: finishReason }
    : { index: 0, message, finish_reason: finishReason };
  return completionOf(ctx, "chat.completion", [choice], usage);
}

/**
 * One chat.completion.chunk; `usage` rides on it when given. A null `delta` with a usage is the
 * usage-only chunk (`choices: []`).
 */
export function chatChunk(ctx: AnswerContext, delta: Obj | null, finishReason: string | null = null, usage?: Obj | null): Obj {
  const choices = !delta
    ? []
    : ctx.logprobs
      ? [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]
      : [{ index: 0, delta, finish_reason: finishReason }];
  return completionOf(ctx, "chat.completion.chunk", choices, usage);
}

/**
 * A completion or chunk with its choices already built (`n` > 1, `logprobs`…), answered by `model`
 * when the vendor names the version that answered.
 */
export function completionOf(
  ctx: AnswerContext,
  object: "chat.completion" | "chat.completion.chunk",
  choices: Obj[],
  usage?: Obj | null,
  model = ctx.model,
): Obj {
  const out: Obj = { id: ctx.id, object, created: ctx.created, model, choices };
  if (usage) out.usage = usage;
  return out;
}

/** OpenAI's error body for a vendor's error; the pipeline treats it as a failed attempt. */
export function openAIErrorBody(message: string, code: string | number | null, type = "upstream_error"): Obj {
  return { error: { message, type, param: null, code } };
}

/** Little-endian float32 bytes in base64, what OpenAI sends for `encoding_format: "base64"`. */
export function floatsToBase64(values: number[]): string {
  const f = new Float32Array(values);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64");
}

/**
 * An OpenAI embeddings list from the vectors (floats, or base64 float32 when the caller asked
 * `encoding_format: "base64"`, as the openai client does by default) and the input tokens.
 */
export function embeddingList(vectors: number[][], model: string, promptTokens: number, base64: boolean): Obj {
  return {
    object: "list",
    data: vectors.map((values, index) => ({ object: "embedding", index, embedding: base64 ? floatsToBase64(values) : values })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** An embeddings request's `input` as a non-empty list of strings (token-id inputs refused), else the caller's 400. */
export function embeddingTexts(input: unknown): string[] {
  const list = typeof input === "string" ? [input] : Array.isArray(input) && input.every((s) => typeof s === "string") ? input : null;
  if (!list || list.length === 0) {
    throw new RelayError(400, "input must be a string or an array of strings", {
      type: "invalid_request_error",
      code: "invalid_input",
      param: "input",
    });
  }
  return list;
}

export function jsonAnswer(value: Obj): { body: string; contentType: string } {
  return { body: JSON.stringify(value), contentType: "application/json" };
}

/**
 * Framing for vendors whose stream endpoint answers an error as one plain JSON body (200 or
 * not, `application/json`): SSE passes through unchanged; a body that starts with `{` instead is
 * collected and handed on as one event, so the converter turns it into an error event.
 */
export function jsonOrSseFraming(): StreamFraming {
  const decoder = new TextDecoder();
  let mode: "unknown" | "sse" | "json" = "unknown";
  let json = "";
  return {
    push(chunk, out) {
      const text = decoder.decode(chunk, { stream: true });
      if (mode === "unknown") {
        const head = text.trimStart();
        if (head === "") return;
        mode = head.startsWith("{") ? "json" : "sse";
      }
      if (mode === "sse") out.sse(text);
      else json += text;
    },
    end(out) {
      const rest = decoder.decode();
      if (mode === "json") out.event((json + rest).replace(/\r?\n/g, " "));
      else if (rest !== "") out.sse(rest);
    },
  };
}
