// The canonical whole answer (an OpenAI chat.completion) → an Anthropic Message, and the pieces
// the stream encoder shares with it: the message id, the stop reason and the usage. Pure.
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { normalizeUsage } from "@/lib/relay/openai/usage";
import { callerToolNames } from "./tool-names";
import { isObj, type Obj } from "@/lib/obj";

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

/** OpenAI's finish_reason → Anthropic's stop_reason (a stop sequence reads as `stop` in OpenAI's). */
export function stopReason(finish: unknown): StopReason {
  switch (finish) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * OpenAI's usage → Anthropic's. OpenAI's prompt_tokens counts everything read, cache reads and
 * writes included; Anthropic's input_tokens counts only what was neither, beside them.
 */
export function anthropicUsage(usage: unknown): AnthropicUsage {
  const u = normalizeUsage(usage);
  if (!u) return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const read = Math.max(0, u.cached_tokens);
  const write = Math.max(0, u.cache_write_tokens);
  return {
    input_tokens: Math.max(0, u.prompt_tokens - read - write),
    output_tokens: Math.max(0, u.completion_tokens),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

/** The Message id: the relay's request id, so a caller's id finds the log row. */
export const messageId = (info: InboundInfo) => `msg_${info.requestId}`;

/** A tool call's arguments → its input object (`{}` for arguments that are no JSON object). */
export function toolInput(args: unknown): Obj {
  if (typeof args !== "string" || args.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isObj(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The reasoning text some OpenAI-protocol vendors send beside the answer (DeepSeek, Qwen…). */
export function reasoningOf(m: Obj): string {
  if (typeof m.reasoning_content === "string") return m.reasoning_content;
  if (typeof m.reasoning === "string") return m.reasoning;
  return "";
}

export function encodeMessage(answer: Obj, info: InboundInfo): Obj {
  const choice = Array.isArray(answer.choices) && isObj(answer.choices[0]) ? answer.choices[0] : {};
  const message = isObj(choice.message) ? choice.message : {};
  const content: Obj[] = [];
  const reasoning = reasoningOf(message);
  if (reasoning !== "") content.push({ type: "thinking", thinking: reasoning, signature: "" });
  if (typeof message.content === "string" && message.content !== "") content.push({ type: "text", text: message.content });
  if (typeof message.refusal === "string" && message.refusal !== "") content.push({ type: "text", text: message.refusal });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolName = callerToolNames(info.request);
  for (const call of calls) {
    if (!isObj(call) || !isObj(call.function)) continue;
    content.push({
      type: "tool_use",
      id: typeof call.id === "string" ? call.id : `toolu_${info.requestId}_${content.length}`,
      name: toolName(typeof call.function.name === "string" ? call.function.name : ""),
      input: toolInput(call.function.arguments),
    });
  }
  return {
    id: messageId(info),
    type: "message",
    role: "assistant",
    model: info.model,
    content,
    stop_reason: calls.length > 0 ? "tool_use" : stopReason(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(answer.usage),
  };
}
