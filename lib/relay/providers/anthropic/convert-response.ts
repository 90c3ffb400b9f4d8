// Anthropic Messages answers → OpenAI shapes: a whole `message` → `chat.completion` here, the
// stream's events in stream.ts. Pure and free of URLs and credentials: Bedrock and Vertex read
// Claude's answers through the same converter.
import { isObj, type Obj } from "@/lib/obj";
import { chatCompletion } from "../convert-shared";
import type { ResponseConverter } from "../types";
import { AnthropicMessage } from "./api";
import { openAIErrorOf } from "./errors";
import { finishReason } from "./finish-reason";
import { AnthropicStreamConverter } from "./stream";
import { anthropicUsage, roundsOf, tokensOf, withRounds } from "./usage";

export interface MessageContext {
  /** Seconds since the epoch for `created`. */
  created: number;
  /** Model name when the answer carries none. */
  model: string;
}

/** A whole Anthropic `message` → an OpenAI `chat.completion` (or the error body it really is). */
export function anthropicToOpenAI(upstream: unknown, ctx: MessageContext): Obj {
  const parsed = AnthropicMessage.safeParse(upstream);
  if (!parsed.success || parsed.data.type === "error") return openAIErrorOf(upstream);
  const answer = parsed.data;
  let text = "";
  let reasoning = "";
  const toolCalls: Obj[] = [];
  for (const block of answer.content) {
    if (block?.type === "text") text += block.text;
    else if (block?.type === "thinking") reasoning += block.thinking;
    else if (block?.type === "tool_use")
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(isObj(block.input) ? block.input : {}) },
      });
  }
  const message: Obj = { content: text === "" && toolCalls.length > 0 ? null : text };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = anthropicUsage(withRounds(tokensOf(answer.usage), roundsOf(answer.usage)));
  return chatCompletion(
    { id: answer.id, created: ctx.created, model: answer.model ?? ctx.model, logprobs: true },
    message,
    finishReason(answer.stop_reason) ?? "stop",
    usage,
  );
}

/**
 * A ResponseConverter for Claude answers (whole and streamed), made per call. For reuse by every
 * adapter whose upstream answers in Anthropic's Messages shape.
 */
export function anthropicResponseConverter(model: string, now: number = Date.now()): ResponseConverter {
  const ctx: MessageContext = { created: Math.floor(now / 1000), model };
  const stream = new AnthropicStreamConverter(ctx);
  return {
    json: (upstream) => ({ body: JSON.stringify(anthropicToOpenAI(upstream, ctx)), contentType: "application/json" }),
    streamEvent: (data) => stream.event(data),
  };
}
