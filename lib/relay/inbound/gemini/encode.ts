// The canonical answer (OpenAI chat.completion, or its chunks) → Gemini's GenerateContentResponse,
// and errors in Google's shape. A stream is one GenerateContentResponse per server-sent event
// (`data: {...}`, no event names, no [DONE]); tool call arguments, which OpenAI streams in
// pieces, are held until the call is complete and sent as one functionCall part; the event that
// ends a candidate is held until the usage arrives, so the last event carries usageMetadata.
import type { InboundInfo, InboundStreamEncoder } from "@/lib/relay/inbound/types";
import { sseJson } from "@/lib/relay/sse";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Google's canonical status names, by HTTP status. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : status >= 400 ? "FAILED_PRECONDITION" : "UNKNOWN");
}

/** `{"error":{"code","message","status"}}`, Google's error body. */
export function geminiError(status: number, message: string): { error: { code: number; message: string; status: string } } {
  return { error: { code: status, message, status: statusName(status) } };
}

const FINISH_REASONS: Readonly<Record<string, string>> = {
  stop: "STOP",
  tool_calls: "STOP",
  function_call: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
};

export function finishReason(reason: unknown): string | undefined {
  if (typeof reason !== "string" || reason === "") return undefined;
  return FINISH_REASONS[reason] ?? "OTHER";
}

/** OpenAI usage → usageMetadata. Reasoning tokens are Gemini's thoughts, counted apart from candidates. */
export function usageMetadata(usage: unknown): Obj | undefined {
  if (!isObj(usage)) return undefined;
  const prompt = num(usage.prompt_tokens);
  const completion = num(usage.completion_tokens);
  const details = isObj(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const thoughts = Math.min(num(details.reasoning_tokens), completion);
  const cached = isObj(usage.prompt_tokens_details) ? num(usage.prompt_tokens_details.cached_tokens) : 0;
  const out: Obj = {
    promptTokenCount: prompt,
    candidatesTokenCount: completion - thoughts,
    totalTokenCount: typeof usage.total_tokens === "number" ? usage.total_tokens : prompt + completion,
  };
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  if (cached > 0) out.cachedContentTokenCount = cached;
  return out;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

/** Tool call arguments (a JSON object as text) → functionCall.args. Text that is no object is kept whole. */
function args(text: unknown): Obj {
  if (typeof text !== "string" || text.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObj(parsed) ? parsed : { value: parsed };
  } catch {
    return { arguments: text };
  }
}

function functionCallPart(call: { id?: unknown; name?: unknown; arguments?: unknown }): Obj {
  const fc: Obj = { name: typeof call.name === "string" ? call.name : "", args: args(call.arguments) };
  if (typeof call.id === "string" && call.id !== "") fc.id = call.id;
  return { functionCall: fc };
}

/** A whole OpenAI chat.completion → GenerateContentResponse. */
export function encodeWhole(answer: Obj, info: InboundInfo): Obj {
  const choices = Array.isArray(answer.choices) ? answer.choices : [];
  const candidates = choices.filter(isObj).map((choice, i) => {
    const message = isObj(choice.message) ? choice.message : {};
    const parts: Obj[] = [];
    if (typeof message.reasoning_content === "string" && message.reasoning_content !== "") {
      parts.push({ text: message.reasoning_content, thought: true });
    }
    if (typeof message.content === "string" && (message.content !== "" || !Array.isArray(message.tool_calls))) {
      parts.push({ text: message.content });
    }
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        if (!isObj(call)) continue;
        const fn = isObj(call.function) ? call.function : {};
        parts.push(functionCallPart({ id: call.id, name: fn.name, arguments: fn.arguments }));
      }
    }
    const candidate: Obj = { content: { role: "model", parts }, index: typeof choice.index === "number" ? choice.index : i };
    const reason = finishReason(choice.finish_reason);
    if (reason) candidate.finishReason = reason;
    return candidate;
  });
  const out: Obj = { candidates };
  const usage = usageMetadata(answer.usage);
  if (usage) out.usageMetadata = usage;
  out.modelVersion = typeof answer.model === "string" && answer.model !== "" ? answer.model : info.model;
  out.responseId = typeof answer.id === "string" && answer.id !== "" ? answer.id : info.requestId;
  return out;
}

/** A tool call being streamed: its arguments gathered until the candidate ends. */
type StreamedCall = { id?: string; name: string; arguments: string };

/** One streamed call's encoder (see the file's head). */
export class GeminiStreamEncoder implements InboundStreamEncoder {
  /** Per candidate index, its tool calls by their OpenAI index. */
  private readonly calls = new Map<number, Map<number, StreamedCall>>();
  /** The events that ended candidates, held for the usage. */
  private held: Obj | null = null;
  private model: string;
  private responseId: string;

  constructor(info: InboundInfo) {
    this.model = info.model;
    this.responseId = info.requestId;
  }

  chunk(chunk: Obj): string {
    if (typeof chunk.model === "string" && chunk.model !== "") this.model = chunk.model;
    if (typeof chunk.id === "string" && chunk.id !== "") this.responseId = chunk.id;
    let out = "";
    const candidates: Obj[] = [];
    const ended: Obj[] = [];
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isObj(choice)) continue;
      const index = typeof choice.index === "number" ? choice.index : 0;
      const delta = isObj(choice.delta) ? choice.delta : {};
      const parts: Obj[] = [];
      if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
        parts.push({ text: delta.reasoning_content, thought: true });
      }
      if (typeof delta.content === "string" && delta.content !== "") parts.push({ text: delta.content });
      if (Array.isArray(delta.tool_calls)) this.gather(index, delta.tool_calls);
      const reason = finishReason(choice.finish_reason);
      if (reason) {
        parts.push(...this.takeCalls(index));
        ended.push({ content: { role: "model", parts }, finishReason: reason, index });
      } else if (parts.length > 0) {
        candidates.push({ content: { role: "model", parts }, index });
      }
    }
    if (candidates.length > 0) out += this.event({ candidates });
    if (ended.length > 0) {
      // Another candidate ending in a later chunk (n > 1) sends what was held first.
      out += this.flush();
      this.held = { candidates: ended };
    }
    const usage = usageMetadata(chunk.usage);
    if (usage) {
      const last = this.held ?? { candidates: [] };
      this.held = null;
      out += this.event({ ...last, usageMetadata: usage });
    }
    return out;
  }

  error(e: { message: string; type: string; code: string | number | null }): string {
    const status = e.code === "stream_timeout" ? 504 : 500;
    return this.flush() + sseJson(JSON.stringify(geminiError(status, e.message)));
  }

  done(): string {
    return this.flush();
  }

  private gather(index: number, deltas: unknown[]): void {
    let calls = this.calls.get(index);
    if (!calls) this.calls.set(index, (calls = new Map()));
    for (const d of deltas) {
      if (!isObj(d)) continue;
      const at = typeof d.index === "number" ? d.index : calls.size;
      const fn = isObj(d.function) ? d.function : {};
      let call = calls.get(at);
      if (!call) calls.set(at, (call = { name: "", arguments: "" }));
      if (typeof d.id === "string" && d.id !== "") call.id = d.id;
      if (typeof fn.name === "string") call.name += fn.name;
      if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    }
  }

  /** The candidate's gathered tool calls as functionCall parts, in order. */
  private takeCalls(index: number): Obj[] {
    const calls = this.calls.get(index);
    if (!calls) return [];
    this.calls.delete(index);
    return [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => functionCallPart(call));
  }

  private flush(): string {
    // Calls of a candidate that never said it ended (a stream cut short) are still the caller's.
    const pending = [...this.calls.keys()].map((index) => ({
      content: { role: "model", parts: this.takeCalls(index) },
      index,
    }));
    if (pending.length > 0) this.held = { candidates: [...((this.held?.candidates as Obj[]) ?? []), ...pending] };
    if (!this.held) return "";
    const held = this.held;
    this.held = null;
    return this.event(held);
  }

  private event(body: Obj): string {
    return sseJson(JSON.stringify({ ...body, modelVersion: this.model, responseId: this.responseId }));
  }
}
