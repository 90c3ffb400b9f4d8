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
import { isObj, type Obj } from "@/lib/obj";
import { type AnswerContext, completionOf, floatsToBase64 } from "../convert-shared";
import { countUnknownEvent } from "../unknown-events";
import { BatchEmbedResponse, type GeminiEvent, GenerateContentResponse } from "./api";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export type { AnswerContext };

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
  const parsed = GenerateContentResponse.safeParse(upstream);
  // Only a non-object fails (every field reads as absent when odd): answered as an empty one.
  const u = parsed.success ? parsed.data : GenerateContentResponse.parse({});
  const choices: Obj[] = u.candidates.map((c, i) => {
    const { text, reasoning, calls } = readParts(c.content);
    const message: Obj = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
    if (reasoning !== "") message.reasoning_content = reasoning;
    if (calls.length > 0) message.tool_calls = calls.map(toolCall);
    return {
      index: c.index ?? i,
      message,
      logprobs: null,
      finish_reason: finishReason(c.finishReason, calls.length > 0) ?? (calls.length > 0 ? "tool_calls" : "stop"),
    };
  });
  if (choices.length === 0) {
    choices.push({
      index: 0,
      message: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: u.promptFeedback ? "content_filter" : "stop",
    });
  }
  return completionOf(ctx, "chat.completion", choices, usageOf(u.usageMetadata), u.modelVersion || ctx.model);
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

  event(event: unknown): Obj | null {
    const error = errorOf(event);
    if (error) return error;
    if (!isObj(event)) return this.unknown("non-object");
    const data: GeminiEvent = event;
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
    if (choices.length === 0 && !usage) return this.unknown(data.candidates === undefined ? "no-candidates" : "empty");
    const model = typeof data.modelVersion === "string" && data.modelVersion !== "" ? data.modelVersion : this.ctx.model;
    return completionOf(this.ctx, "chat.completion.chunk", choices, usage, model);
  }

  /** An event holding nothing this converter knows (no candidates, block or usage): counted, skipped. */
  private unknown(kind: string): null {
    countUnknownEvent("gemini", kind);
    return null;
  }
}

/** `batchEmbedContents`' `{embeddings: [{values}]}` → an OpenAI embeddings list. */
export function toEmbeddingList(upstream: unknown, model: string, promptTokens: number, base64: boolean): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  const parsed = BatchEmbedResponse.safeParse(upstream);
  const list = parsed.success ? parsed.data.embeddings : [];
  return {
    object: "list",
    data: list.map(({ values }, index) => ({
      object: "embedding",
      index,
      embedding: base64 ? floatsToBase64(values as number[]) : values,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
