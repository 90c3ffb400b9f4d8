// The canonical stream (OpenAI chat.completion.chunk objects) → Anthropic's Messages events, in
// Anthropic's order: message_start, ping, then per content block content_block_start, its
// deltas and content_block_stop (one block at a time: reasoning as a thinking block, text as a
// text block, each tool call its own tool_use block with input_json_delta fragments), then
// message_delta (stop_reason and the usage) and message_stop.
//
// OpenAI sends finish_reason on a chunk before the usage chunk (`choices: []`, the last before
// [DONE]), so message_delta waits for that chunk, or for the end of the stream when the usage
// rode on a choice chunk. A failed stream ends with an `error` event and no message_stop, as
// Anthropic's own does.
import type { InboundInfo, InboundStreamEncoder } from "@/lib/relay/inbound/types";
import { sseNamedEvent } from "@/lib/relay/openai/sse";
import { anthropicUsage, messageId, reasoningOf, type StopReason, stopReason } from "./encode-response";
import { anthropicError, streamErrorType } from "./errors";
import { callerToolNames } from "./tool-names";
import { isObj, type Obj } from "@/lib/obj";

const event = (name: string, data: Obj) => sseNamedEvent(name, JSON.stringify({ type: name, ...data }));

type BlockKind = "thinking" | "text" | "tool";

export class AnthropicStreamEncoder implements InboundStreamEncoder {
  private started = false;
  private ended = false;
  /** The index the next content block gets. */
  private nextIndex = 0;
  private open: BlockKind | null = null;
  /** OpenAI's tool-call index → the tool_use block's index. */
  private readonly toolBlocks = new Map<number, number>();
  private stop: StopReason | null = null;
  private usage: unknown = null;

  private readonly toolName: (name: string) => string;

  constructor(private readonly info: InboundInfo) {
    this.toolName = callerToolNames(info.request);
  }

  chunk(chunk: Obj): string {
    if (this.ended) return "";
    let out = this.start(chunk);
    if (isObj(chunk.usage)) this.usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = isObj(choices[0]) ? choices[0] : null;
    if (choice) {
      const delta = isObj(choice.delta) ? choice.delta : {};
      const reasoning = reasoningOf(delta);
      if (reasoning !== "") out += this.thinking(reasoning);
      if (typeof delta.content === "string" && delta.content !== "") out += this.text(delta.content);
      if (typeof delta.refusal === "string" && delta.refusal !== "") out += this.text(delta.refusal);
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isObj(call)) out += this.toolCall(call);
      if (isObj(choice.usage)) this.usage = choice.usage; // Moonshot and clones put it here
      if (typeof choice.finish_reason === "string") this.stop = stopReason(choice.finish_reason);
    }
    // The usage chunk is the last before the end: the message can be finished now. (A chunk
    // without choices or usage, like Azure's prompt_filter_results first chunk, is not it.)
    if (choices.length === 0 && isObj(chunk.usage)) out += this.finish();
    return out;
  }

  error(error: { message: string; type: string; code: string | number | null }): string {
    if (this.ended) return "";
    this.ended = true;
    return event("error", { error: anthropicError(streamErrorType(error.type, error.code), error.message).error });
  }

  done(): string {
    if (this.ended) return "";
    return this.start(null) + this.finish();
  }

  private start(chunk: Obj | null): string {
    if (this.started) return "";
    this.started = true;
    // What the prompt cost is known here only when the upstream reports usage on every chunk.
    const usage = anthropicUsage(chunk && isObj(chunk.usage) ? chunk.usage : null);
    const message = {
      id: messageId(this.info),
      type: "message",
      role: "assistant",
      model: this.info.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 0 },
    };
    return event("message_start", { message }) + event("ping", {});
  }

  private finish(): string {
    this.ended = true;
    const usage = anthropicUsage(this.usage);
    const stop = this.toolBlocks.size > 0 && this.stop !== "max_tokens" ? "tool_use" : (this.stop ?? "end_turn");
    return (
      this.closeBlock() + event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage }) + event("message_stop", {})
    );
  }

  private openBlock(kind: BlockKind, content: Obj): string {
    const out = this.closeBlock();
    this.open = kind;
    return out + event("content_block_start", { index: this.nextIndex, content_block: content });
  }

  private closeBlock(): string {
    if (!this.open) return "";
    this.open = null;
    return event("content_block_stop", { index: this.nextIndex++ });
  }

  private thinking(text: string): string {
    const out = this.open === "thinking" ? "" : this.openBlock("thinking", { type: "thinking", thinking: "", signature: "" });
    return out + event("content_block_delta", { index: this.nextIndex, delta: { type: "thinking_delta", thinking: text } });
  }

  private text(text: string): string {
    const out = this.open === "text" ? "" : this.openBlock("text", { type: "text", text: "" });
    return out + event("content_block_delta", { index: this.nextIndex, delta: { type: "text_delta", text } });
  }

  private toolCall(call: Obj): string {
    const fn = isObj(call.function) ? call.function : {};
    const callIndex = typeof call.index === "number" ? call.index : this.toolBlocks.size;
    let out = "";
    let blockIndex = this.toolBlocks.get(callIndex);
    if (blockIndex === undefined) {
      out += this.openBlock("tool", {
        type: "tool_use",
        id: typeof call.id === "string" && call.id !== "" ? call.id : `toolu_${this.info.requestId}_${callIndex}`,
        name: this.toolName(typeof fn.name === "string" ? fn.name : ""),
        input: {},
      });
      blockIndex = this.nextIndex;
      this.toolBlocks.set(callIndex, blockIndex);
    }
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    if (args === "") return out;
    // A fragment of a call whose block is already closed (an upstream interleaving parallel
    // calls) still goes to that block's index: clients accumulate deltas by index.
    return out + event("content_block_delta", { index: blockIndex, delta: { type: "input_json_delta", partial_json: args } });
  }
}
