// Anthropic Messages answers → OpenAI shapes: a whole `message` → `chat.completion`, and the
// stream's events → `chat.completion.chunk`s (stateful, one converter per call). Pure and free of
// URLs and credentials: Bedrock and Vertex read Claude's answers through the same converter.
import { isObj, type Obj } from "@/lib/obj";
import type { ResponseConverter } from "../types";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Anthropic's stop_reason → OpenAI's finish_reason. */
export function finishReason(stop: unknown): string | null {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return typeof stop === "string" && stop !== "" ? "stop" : null;
  }
}

export interface AnthropicTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * OpenAI usage from Anthropic's counts. Anthropic's `input_tokens` excludes cached input, so
 * prompt_tokens adds cache reads and cache writes back in; `cached_tokens` are the reads and
 * `cache_write_tokens` the writes (lib/relay/openai/usage.ts reads both for billing).
 */
export function openAIUsage(t: AnthropicTokens): Obj {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: t.output,
    total_tokens: prompt + t.output,
    prompt_tokens_details: { cached_tokens: t.cacheRead, cache_write_tokens: t.cacheWrite },
  };
}

function tokensOf(u: unknown, into: AnthropicTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }): AnthropicTokens {
  if (!isObj(u)) return into;
  if ("input_tokens" in u) into.input = num(u.input_tokens);
  if ("output_tokens" in u) into.output = num(u.output_tokens);
  if ("cache_read_input_tokens" in u) into.cacheRead = num(u.cache_read_input_tokens);
  if ("cache_creation_input_tokens" in u) into.cacheWrite = num(u.cache_creation_input_tokens);
  return into;
}

/** `{"type":"error","error":{type,message}}` (or a bare `{message}`) → OpenAI's error body. */
export function openAIErrorOf(upstream: unknown): Obj {
  const err = isObj(upstream) && isObj(upstream.error) ? upstream.error : isObj(upstream) ? upstream : {};
  const type = typeof err.type === "string" && err.type !== "" ? err.type : "upstream_error";
  const message = typeof err.message === "string" && err.message !== "" ? err.message : "upstream returned an error";
  return { error: { message, type, param: null, code: type } };
}

export interface MessageContext {
  /** Seconds since the epoch for `created`. */
  created: number;
  /** Model name when the answer carries none. */
  model: string;
}

/** A whole Anthropic `message` → an OpenAI `chat.completion` (or the error body it really is). */
export function anthropicToOpenAI(upstream: unknown, ctx: MessageContext): Obj {
  if (!isObj(upstream) || upstream.type === "error" || !Array.isArray(upstream.content)) return openAIErrorOf(upstream);
  let text = "";
  let reasoning = "";
  const toolCalls: Obj[] = [];
  for (const block of upstream.content) {
    if (!isObj(block)) continue;
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "thinking" && typeof block.thinking === "string") reasoning += block.thinking;
    else if (block.type === "tool_use")
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(isObj(block.input) ? block.input : {}) },
      });
  }
  const message: Obj = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: typeof upstream.id === "string" ? upstream.id : "",
    object: "chat.completion",
    created: ctx.created,
    model: typeof upstream.model === "string" ? upstream.model : ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(upstream.stop_reason) ?? "stop" }],
    usage: openAIUsage(tokensOf(upstream.usage)),
  };
}

/**
 * The stream's events, one at a time, → OpenAI chunks. `message_start` gives the id, model and
 * input counts (the role chunk); each `tool_use` block start opens a tool call (its index counts
 * tool blocks only); text, JSON and thinking deltas become content, arguments and
 * `reasoning_content`; `message_delta` gives the finish reason and output count; `message_stop`
 * sends the usage chunk (`choices: []`), which the stream relay drops when the client did not ask
 * for usage. `ping` and block stops are dropped; an `error` event becomes OpenAI's error.
 */
export class AnthropicStreamConverter {
  private id = "";
  private model: string;
  private readonly created: number;
  private readonly tokens: AnthropicTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  /** Anthropic's content block index → the OpenAI tool call index. */
  private readonly toolIndex = new Map<number, number>();
  private usageSent = false;

  constructor(ctx: MessageContext) {
    this.created = ctx.created;
    this.model = ctx.model;
  }

  private chunk(delta: Obj, finish: string | null = null): Obj {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
  }

  event(data: unknown): Obj | null {
    if (!isObj(data)) return null;
    switch (data.type) {
      case "message_start": {
        const m = isObj(data.message) ? data.message : {};
        if (typeof m.id === "string") this.id = m.id;
        if (typeof m.model === "string" && m.model !== "") this.model = m.model;
        tokensOf(m.usage, this.tokens);
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
        const d = isObj(data.delta) ? data.delta : {};
        const finish = finishReason(d.stop_reason);
        return finish ? this.chunk({}, finish) : null;
      }
      case "message_stop":
        return this.usageChunk();
      case "error":
        return openAIErrorOf(data);
      default:
        // ping, content_block_stop, and event types added later
        return null;
    }
  }

  private usageChunk(): Obj | null {
    if (this.usageSent) return null;
    this.usageSent = true;
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [],
      usage: openAIUsage(this.tokens),
    };
  }
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
