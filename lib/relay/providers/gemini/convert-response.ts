// Gemini answers → OpenAI shapes. Pure apart from the tool-call ids it makes up (Gemini's
// functionCall parts carry none; `call_` + 24 random hex characters, as OpenAI's look).
//
// - candidates → choices: text parts joined, `thought: true` parts → reasoning_content,
//   functionCall parts → tool_calls (finish_reason "tool_calls").
// - finishReason: STOP → stop, MAX_TOKENS → length, SAFETY / RECITATION / BLOCKLIST /
//   PROHIBITED_CONTENT / SPII / IMAGE_SAFETY → content_filter, anything else → stop.
// - A prompt Gemini blocked (promptFeedback.blockReason, no candidates) is an ANSWER, not an
//   error: one empty choice with finish_reason content_filter, billed for the prompt tokens Gemini
//   counted. A client then sees what OpenAI's own filter looks like, and nothing is retried on
//   another channel for a prompt that would be blocked there too.
// - usageMetadata: prompt = promptTokenCount + toolUsePromptTokenCount; completion =
//   candidatesTokenCount + thoughtsTokenCount (thoughts also as reasoning_tokens); cached_tokens =
//   cachedContentTokenCount.
import { randomBytes } from "node:crypto";
import { floatsToBase64 } from "../convert-shared";
import { isObj, type Obj } from "@/lib/obj";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export interface AnswerContext {
  id: string;
  created: number;
  model: string;
}

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

export function finishReason(reason: unknown, sawToolCall: boolean): string | null {
  if (typeof reason !== "string" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return null;
  if (FILTERED.has(reason)) return "content_filter";
  if (reason === "MAX_TOKENS") return "length";
  return sawToolCall ? "tool_calls" : "stop";
}

export const newToolCallId = (): string => `call_${randomBytes(12).toString("hex")}`;

/** Gemini's usageMetadata → OpenAI's usage, or undefined when there is none. */
export function usageOf(meta: unknown): Obj | undefined {
  if (!isObj(meta)) return undefined;
  const prompt = num(meta.promptTokenCount) + num(meta.toolUsePromptTokenCount);
  const thoughts = num(meta.thoughtsTokenCount);
  const completion = num(meta.candidatesTokenCount) + thoughts;
  const usage: Obj = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const cached = num(meta.cachedContentTokenCount);
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  if (thoughts > 0) usage.completion_tokens_details = { reasoning_tokens: thoughts };
  return usage;
}

interface Call {
  name: string;
  args: unknown;
  signature?: string;
}

interface Parts {
  text: string;
  reasoning: string;
  calls: Call[];
}

function readParts(content: unknown): Parts {
  const out: Parts = { text: "", reasoning: "", calls: [] };
  const parts = isObj(content) && Array.isArray(content.parts) ? content.parts : [];
  for (const p of parts) {
    if (!isObj(p)) continue;
    if (isObj(p.functionCall) && typeof p.functionCall.name === "string") {
      const signature = typeof p.thoughtSignature === "string" && p.thoughtSignature !== "" ? p.thoughtSignature : undefined;
      out.calls.push({ name: p.functionCall.name, args: p.functionCall.args ?? {}, ...(signature ? { signature } : {}) });
    } else if (typeof p.text === "string") {
      if (p.thought === true) out.reasoning += p.text;
      else out.text += p.text;
    }
  }
  return out;
}

/** An OpenAI tool call; Gemini's thought signature rides along as Google's compatible endpoint sends it. */
function toolCall(c: Call): Obj {
  const call: Obj = { id: newToolCallId(), type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } };
  if (c.signature) call.extra_content = { google: { thought_signature: c.signature } };
  return call;
}

/** Gemini's `{"error": {code, message, status}}` → OpenAI's error object. */
export function errorOf(upstream: unknown): Obj | null {
  if (!isObj(upstream) || !isObj(upstream.error)) return null;
  const e = upstream.error;
  return {
    error: {
      message: typeof e.message === "string" && e.message !== "" ? e.message : "Gemini error",
      type: typeof e.status === "string" && e.status !== "" ? e.status : "upstream_error",
      param: null,
      code: typeof e.code === "number" || typeof e.code === "string" ? e.code : null,
    },
  };
}

/** A whole `GenerateContentResponse` → a chat.completion (or OpenAI's error object). */
export function toChatCompletion(upstream: unknown, ctx: AnswerContext): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  const u = isObj(upstream) ? upstream : {};
  const candidates = Array.isArray(u.candidates) ? u.candidates.filter(isObj) : [];
  const choices: Obj[] = candidates.map((c, i) => {
    const { text, reasoning, calls } = readParts(c.content);
    const message: Obj = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
    if (reasoning !== "") message.reasoning_content = reasoning;
    if (calls.length > 0) message.tool_calls = calls.map(toolCall);
    return {
      index: typeof c.index === "number" ? c.index : i,
      message,
      logprobs: null,
      finish_reason: finishReason(c.finishReason, calls.length > 0) ?? (calls.length > 0 ? "tool_calls" : "stop"),
    };
  });
  if (choices.length === 0) {
    const blocked = isObj(u.promptFeedback) && typeof u.promptFeedback.blockReason === "string";
    choices.push({
      index: 0,
      message: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: blocked ? "content_filter" : "stop",
    });
  }
  const answer: Obj = {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: typeof u.modelVersion === "string" && u.modelVersion !== "" ? u.modelVersion : ctx.model,
    choices,
  };
  const usage = usageOf(u.usageMetadata);
  if (usage) answer.usage = usage;
  return answer;
}

/**
 * The stream's events → chat.completion.chunk objects. Every SSE event of
 * `streamGenerateContent?alt=sse` is a whole GenerateContentResponse holding the next piece; its
 * usageMetadata is cumulative, so it is passed on with the chunk that carries the finishReason
 * (or with a blocked prompt's only event, or an event that holds nothing but usage).
 */
export class GeminiStream {
  private roleSent = new Set<number>();
  private toolIndex = new Map<number, number>();
  constructor(private readonly ctx: AnswerContext) {}

  event(data: unknown): Obj | null {
    const error = errorOf(data);
    if (error) return error;
    if (!isObj(data)) return null;
    const candidates = Array.isArray(data.candidates) ? data.candidates.filter(isObj) : [];
    const choices: Obj[] = [];
    let finished = false;
    for (const [i, c] of candidates.entries()) {
      const index = typeof c.index === "number" ? c.index : i;
      const { text, reasoning, calls } = readParts(c.content);
      const delta: Obj = {};
      if (!this.roleSent.has(index)) {
        delta.role = "assistant";
        this.roleSent.add(index);
      }
      if (text !== "") delta.content = text;
      if (reasoning !== "") delta.reasoning_content = reasoning;
      if (calls.length > 0) {
        const first = this.toolIndex.get(index) ?? 0;
        delta.tool_calls = calls.map((call, k) => ({ index: first + k, ...toolCall(call) }));
        this.toolIndex.set(index, first + calls.length);
      }
      const reason = finishReason(c.finishReason, this.toolIndex.has(index));
      if (reason) finished = true;
      choices.push({ index, delta, logprobs: null, finish_reason: reason });
    }
    const blocked = candidates.length === 0 && isObj(data.promptFeedback) && typeof data.promptFeedback.blockReason === "string";
    if (blocked) {
      finished = true;
      choices.push({ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: "content_filter" });
    }
    // An event without candidates that reports usage (a trailing usage-only event) is passed on too.
    const usage = finished || candidates.length === 0 ? usageOf(data.usageMetadata) : undefined;
    if (choices.length === 0 && !usage) return null;
    const chunk: Obj = {
      id: this.ctx.id,
      object: "chat.completion.chunk",
      created: this.ctx.created,
      model: typeof data.modelVersion === "string" && data.modelVersion !== "" ? data.modelVersion : this.ctx.model,
      choices,
    };
    if (usage) chunk.usage = usage;
    return chunk;
  }
}

/** `batchEmbedContents`' `{embeddings: [{values}]}` → an OpenAI embeddings list. */
export function toEmbeddingList(upstream: unknown, model: string, promptTokens: number, base64: boolean): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  const list = isObj(upstream) && Array.isArray(upstream.embeddings) ? upstream.embeddings : [];
  return {
    object: "list",
    data: list.map((e, index) => {
      const values = isObj(e) && Array.isArray(e.values) ? (e.values as number[]) : [];
      return { object: "embedding", index, embedding: base64 ? floatsToBase64(values) : values };
    }),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
