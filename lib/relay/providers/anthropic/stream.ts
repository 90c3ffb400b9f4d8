// Anthropic's stream events, one at a time, → OpenAI chunks (stateful, one converter per call).
import { isObj, type Obj } from "@/lib/obj";
import { type AnswerContext, chatChunk } from "../convert-shared";
import { countUnknownEvent } from "../unknown-events";
import { isStreamEvent } from "./api";
import { finishReason } from "./finish-reason";
import { openAIErrorOf } from "./errors";
import { type AnthropicTokens, anthropicUsage, noTokens, roundsOf, tokensOf, withRounds } from "./usage";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * The stream's events → OpenAI chunks. `message_start` gives the id, model and input counts (the
 * role chunk); each `tool_use` block start opens a tool call (its index counts tool blocks only);
 * text, JSON and thinking deltas become content, arguments and `reasoning_content`;
 * `message_delta` gives the finish reason and output count; `message_stop` sends the usage chunk
 * (`choices: []`), which the stream relay drops when the client did not ask for usage. `ping` and
 * block stops are dropped; an `error` event becomes OpenAI's error; an event type this converter
 * does not know is counted (unknown-events.ts) and dropped.
 */
export class AnthropicStreamConverter {
  private readonly ctx: AnswerContext;
  private readonly tokens: AnthropicTokens = noTokens();
  /** Rounds the top-level counts leave out (compaction), from `usage.iterations`. */
  private readonly rounds: AnthropicTokens = noTokens();
  /** Anthropic's content block index → the OpenAI tool call index. */
  private readonly toolIndex = new Map<number, number>();
  private usageSent = false;

  constructor(ctx: { created: number; model: string }) {
    this.ctx = { id: "", created: ctx.created, model: ctx.model, logprobs: true };
  }

  private chunk(delta: Obj, finish: string | null = null): Obj {
    return chatChunk(this.ctx, delta, finish);
  }

  event(data: unknown): Obj | null {
    if (!isStreamEvent(data)) return null;
    switch (data.type) {
      case "message_start": {
        const m = isObj(data.message) ? data.message : {};
        if (typeof m.id === "string") this.ctx.id = m.id;
        if (typeof m.model === "string" && m.model !== "") this.ctx.model = m.model;
        tokensOf(m.usage, this.tokens);
        roundsOf(m.usage, this.rounds);
        return this.chunk({ role: "assistant", content: "" });
      }
      case "content_block_start": {
        const b = isObj(data.content_block) ? data.content_block : {};
        if (b.type === "tool_use") {
          const index = this.toolIndex.size;
          this.toolIndex.set(num(data.index), index);
          return this.chunk({ tool_calls: [{ index, id: b.id, type: "function", function: { name: b.name, arguments: "" } }] });
        }
        if (b.type === "text" && typeof b.text === "string" && b.text !== "") return this.chunk({ content: b.text });
        return null;
      }
      case "content_block_delta": {
        const d = isObj(data.delta) ? data.delta : {};
        if (d.type === "text_delta" && typeof d.text === "string") return this.chunk({ content: d.text });
        if (d.type === "thinking_delta" && typeof d.thinking === "string") return this.chunk({ reasoning_content: d.thinking });
        if (d.type === "input_json_delta" && typeof d.partial_json === "string") {
          const index = this.toolIndex.get(num(data.index));
          if (index === undefined || d.partial_json === "") return null;
          return this.chunk({ tool_calls: [{ index, function: { arguments: d.partial_json } }] });
        }
        return null;
      }
      case "message_delta": {
        tokensOf(data.usage, this.tokens);
        roundsOf(data.usage, this.rounds);
        const d = isObj(data.delta) ? data.delta : {};
        const finish = finishReason(d.stop_reason);
        return finish ? this.chunk({}, finish) : null;
      }
      case "message_stop":
        return this.usageChunk();
      case "error":
        return openAIErrorOf(data);
      case "ping":
      case "content_block_stop":
        return null;
      default:
        countUnknownEvent("anthropic", String(data.type));
        return null;
    }
  }

  private usageChunk(): Obj | null {
    if (this.usageSent) return null;
    this.usageSent = true;
    return chatChunk(this.ctx, null, null, anthropicUsage(withRounds(this.tokens, this.rounds)));
  }
}
