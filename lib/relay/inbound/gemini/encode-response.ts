// The canonical answer (OpenAI chat.completion) → Gemini's GenerateContentResponse, and errors in
// Google's shape. The streamed answer is encode-stream.ts's.
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { isObj, type Obj } from "@/lib/obj";

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
  // Anthropic's "overloaded" passed on by a Claude channel: Google's name for a busy service.
  529: "UNAVAILABLE",
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

export function functionCallPart(call: { id?: unknown; name?: unknown; arguments?: unknown }): Obj {
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
