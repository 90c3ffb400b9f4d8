// The relay's OpenAI stream → Anthropic's Messages events, through the inbound plumbing
// (InboundCall.streamWriter) as the stream relay drives it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InboundCall } from "@/lib/relay/inbound";
import { anthropicProtocol } from "./index";
import { upstreamToolName } from "./tool-names";
import type { Obj } from "@/lib/obj";

const info = { requestId: "rid1", model: "claude-sonnet-4-5", created: 0, request: {} };
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8");

/** Feeds `sse` in pieces of `step` bytes; returns the events written, parsed. */
function run(sse: string, step = 37): { event: string; data: Obj }[] {
  const writer = new InboundCall(anthropicProtocol, info).streamWriter();
  const bytes = Buffer.from(sse);
  let out = "";
  for (let i = 0; i < bytes.length; i += step) {
    const written = writer.write(bytes.subarray(i, i + step));
    if (written) out += Buffer.from(written).toString();
  }
  return out
    .split("\n\n")
    .filter((b) => b !== "")
    .map((block) => {
      const [eventLine, dataLine, ...rest] = block.split("\n");
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: /);
      const data = JSON.parse(dataLine!.replace(/^data: /, "")) as Obj;
      const event = eventLine!.slice(7);
      expect(data.type).toBe(event);
      return { event, data };
    });
}

const chunk = (delta: Obj, finish: string | null = null, extra: Obj = {}) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const DONE = "data: [DONE]\n\n";

describe("AnthropicStreamEncoder", () => {
  it("encodes reasoning, text and two tool calls as blocks in order, message_delta after the usage chunk", () => {
    const events = run(fixture("openai-reasoning-tools.chunks.txt"));
    expect(events.map((e) => [e.event, e.data.index ?? null])).toEqual([
      ["message_start", null],
      ["ping", null],
      ["content_block_start", 0],
      ["content_block_delta", 0],
      ["content_block_delta", 0],
      ["content_block_stop", 0],
      ["content_block_start", 1],
      ["content_block_delta", 1],
      ["content_block_stop", 1],
      ["content_block_start", 2],
      ["content_block_delta", 2],
      ["content_block_delta", 2],
      ["content_block_stop", 2],
      ["content_block_start", 3],
      ["content_block_delta", 3],
      ["content_block_stop", 3],
      ["message_delta", null],
      ["message_stop", null],
    ]);
    expect(events[0]!.data.message).toEqual({
      id: "msg_rid1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
    expect(events[2]!.data.content_block).toEqual({ type: "thinking", thinking: "", signature: "" });
    expect(events.slice(3, 5).map((e) => e.data.delta)).toEqual([
      { type: "thinking_delta", thinking: "The user wants" },
      { type: "thinking_delta", thinking: " two cities." },
    ]);
    expect(events[6]!.data.content_block).toEqual({ type: "text", text: "" });
    expect(events[7]!.data.delta).toEqual({ type: "text_delta", text: "Checking both." });
    expect(events[9]!.data.content_block).toEqual({ type: "tool_use", id: "call_0_a1", name: "get_weather", input: {} });
    expect(events.slice(10, 12).map((e) => e.data.delta)).toEqual([
      { type: "input_json_delta", partial_json: '{"city":' },
      { type: "input_json_delta", partial_json: '"Paris"}' },
    ]);
    expect(events[13]!.data.content_block).toEqual({ type: "tool_use", id: "call_1_b2", name: "get_weather", input: {} });
    expect(events[14]!.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"city":"Rome"}' });
    expect(events[16]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 176, output_tokens: 57, cache_read_input_tokens: 1024, cache_creation_input_tokens: 0 },
    });
  });

  it("gives a shortened tool name back as the caller wrote it", () => {
    const long = `mcp__${"y".repeat(90)}`;
    const writer = new InboundCall(anthropicProtocol, { ...info, request: { tools: [{ name: long, input_schema: {} }] } }).streamWriter();
    const sse =
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: upstreamToolName(long), arguments: "{}" } }] }) +
      DONE;
    const out = Buffer.from(writer.write(Buffer.from(sse))!).toString();
    expect(out).toContain(`"content_block":{"type":"tool_use","id":"call_1","name":"${long}","input":{}}`);
  });

  it("holds message_delta until the end when the usage rides on a choice chunk", () => {
    const events = run(
      chunk({ content: "Hi" }) +
        chunk({}, "length", { usage: { prompt_tokens: 9, completion_tokens: 1 } }) +
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {} }] })}\n\n` +
        DONE,
    );
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[5]!.data).toMatchObject({ delta: { stop_reason: "max_tokens" }, usage: { input_tokens: 9, output_tokens: 1 } });
  });

  it("does not take a chunk without choices or usage (Azure's first) for the end", () => {
    const azureFirst = `data: ${JSON.stringify({ choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] })}\n\n`;
    const events = run(
      azureFirst + chunk({ content: "Hi" }, null, { usage: { prompt_tokens: 3, completion_tokens: 1 } }) + chunk({}, "stop") + DONE,
    );
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("reports the input in message_start when the upstream sends usage on every chunk", () => {
    const events = run(chunk({ content: "Hi" }, null, { usage: { prompt_tokens: 30, completion_tokens: 1 } }) + DONE);
    expect((events[0]!.data.message as Obj).usage).toMatchObject({ input_tokens: 30, output_tokens: 0 });
  });

  it("still opens and closes the message for an empty stream", () => {
    expect(run(DONE).map((e) => e.event)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);
    expect(run(DONE).at(-2)!.data).toMatchObject({ delta: { stop_reason: "end_turn" } });
  });

  it("ends a failed stream with Anthropic's error event and nothing after it", () => {
    const events = run(
      chunk({ content: "Hel" }) +
        `data: ${JSON.stringify({ error: { message: "upstream stream timed out", type: "upstream_error", code: "stream_timeout" } })}\n\n` +
        DONE,
    );
    expect(events.map((e) => e.event)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "error"]);
    expect(events.at(-1)!.data).toEqual({ type: "error", error: { type: "timeout_error", message: "upstream stream timed out" } });
  });
});
