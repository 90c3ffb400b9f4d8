// The Responses stream from recorded OpenAI chat streams (lib/relay/openai/__fixtures__), re-encoded by
// the inbound plumbing exactly as the relay does, and read back by the official SDK's own stream
// accumulator, which throws on any event out of place.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { InboundCall } from "@/lib/relay/inbound";
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { responsesProtocol } from "./index";

const chunks = (name: string) => readFileSync(path.join(import.meta.dirname, "../../openai/__fixtures__", name), "utf8");

const info = (request: Record<string, unknown> = {}): InboundInfo => ({
  requestId: "20261124050000abcd123456",
  model: "gpt-4o-mini",
  created: 1_763_960_000,
  request: { model: "gpt-4o-mini", input: "hi", stream: true, ...request },
});

/** The relay's OpenAI SSE text → the caller's bytes, written in small pieces as a socket would. */
function encode(relayed: string, request?: Record<string, unknown>): string {
  const writer = new InboundCall(responsesProtocol, info(request)).streamWriter();
  let out = "";
  for (let i = 0; i < relayed.length; i += 97) {
    const bytes = writer.write(Buffer.from(relayed.slice(i, i + 97)));
    if (bytes) out += Buffer.from(bytes).toString();
  }
  return out;
}

function events(sse: string): ResponseStreamEvent[] {
  return sse
    .split("\n\n")
    .filter(Boolean)
    .map((e) => {
      const [name, data] = e.split("\n");
      const event = JSON.parse(data!.slice("data: ".length));
      expect(name).toBe(`event: ${event.type}`);
      return event;
    });
}

/**
 * What the official SDK makes of the events (its accumulator refuses events out of place). Its
 * readable-stream door takes them as JSON lines, the SSE having been read by `events`.
 */
async function sdkFinal(sse: string) {
  const body = new Response(
    `${events(sse)
      .map((e) => JSON.stringify(e))
      .join("\n")}\n`,
  ).body!;
  return ResponseStream.fromReadableStream(body).finalResponse();
}

describe("the Responses stream", () => {
  it("turns a recorded chat stream into the message item's events, then response.completed with usage", async () => {
    const sse = encode(chunks("openai-chat.chunks.txt"));
    const list = events(sse);
    expect(list.map((e) => e.sequence_number)).toEqual(list.map((_, i) => i));
    const types = list.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(4, -4).every((t) => t === "response.output_text.delta")).toBe(true);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const created = list[0] as Extract<ResponseStreamEvent, { type: "response.created" }>;
    expect(created.response).toMatchObject({
      id: "resp_20261124050000abcd123456",
      status: "in_progress",
      output: [],
      usage: null,
    });
    const final = await sdkFinal(sse);
    const text = list
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => (e as { delta: string }).delta)
      .join("");
    expect(text.length).toBeGreaterThan(0);
    expect(final.output_text).toBe(text);
    expect(final.status).toBe("completed");
    expect(final.usage).toEqual({
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 18,
    });
  });

  it("turns recorded parallel tool calls into function_call items with their arguments", async () => {
    const sse = encode(chunks("openai-chat-tools.chunks.txt"));
    const list = events(sse);
    const added = list.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => (e as { item: { call_id: string } }).item.call_id)).toEqual([
      "call_hR4lqG0x1bB8Gk2wPz7nYc3T",
      "call_9mVb2LkQ7sWx4Hn1Dp6Rt0Ye",
    ]);
    const final = await sdkFinal(sse);
    expect(final.output.map((o) => o.type)).toEqual(["function_call", "function_call"]);
    for (const item of final.output) {
      expect(item).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
      JSON.parse((item as { arguments: string }).arguments);
    }
    const done = list.filter((e) => e.type === "response.function_call_arguments.done");
    expect(done.map((e) => (e as { arguments: string }).arguments)).toEqual(
      final.output.map((o) => (o as { arguments: string }).arguments),
    );
    expect(final.usage).toMatchObject({ input_tokens: 80, input_tokens_details: { cached_tokens: 64 }, output_tokens: 46 });
  });

  it("streams calls of Codex's custom, local shell and namespaced tools as their own items, read by the SDK", async () => {
    const tools = [
      { type: "custom", name: "apply_patch" },
      { type: "local_shell" },
      { type: "namespace", name: "multi_agent_v1", description: "agents", tools: [{ type: "function", name: "spawn_agent" }] },
    ];
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n";
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const opening = (index: number, id: string, name: string) => ({
      tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }],
    });
    const args = (index: number, text: string) => ({ tool_calls: [{ index, function: { arguments: text } }] });
    const patchArgs = JSON.stringify({ input: patch });
    const relayed =
      chunk({ role: "assistant", content: null }) +
      chunk(opening(0, "call_1", "apply_patch")) +
      chunk(args(0, patchArgs.slice(0, 20))) +
      chunk(args(0, patchArgs.slice(20))) +
      chunk(opening(1, "call_2", "local_shell")) +
      chunk(args(1, '{"command":["ls"]}')) +
      chunk(opening(2, "call_3", "multi_agent_v1__spawn_agent")) +
      chunk(args(2, '{"task":"t"}')) +
      chunk({}, "tool_calls") +
      "data: [DONE]\n\n";
    const sse = encode(relayed, { tools });
    const kinds = events(sse).map((e) => e.type);
    expect(kinds.filter((k) => k.startsWith("response.custom_tool_call_input"))).toEqual([
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
    ]);
    // Only the namespaced function streams its arguments; the custom input and shell action are read whole.
    expect(kinds.filter((k) => k === "response.function_call_arguments.delta")).toHaveLength(1);
    const final = await sdkFinal(sse);
    expect(final.output).toEqual([
      expect.objectContaining({ type: "custom_tool_call", call_id: "call_1", name: "apply_patch", input: patch, status: "completed" }),
      expect.objectContaining({
        type: "local_shell_call",
        call_id: "call_2",
        action: { type: "exec", command: ["ls"], env: {} },
        status: "completed",
      }),
      expect.objectContaining({
        type: "function_call",
        call_id: "call_3",
        namespace: "multi_agent_v1",
        name: "spawn_agent",
        arguments: '{"task":"t"}',
      }),
    ]);
  });

  it("streams a recorded DeepSeek reasoner's reasoning as a reasoning item before the answer", async () => {
    const sse = encode(chunks("deepseek-reasoner.chunks.txt"));
    const list = events(sse);
    const types = list.map((e) => e.type);
    const reasoningDone = types.indexOf("response.reasoning_text.done");
    expect(types.slice(2, 4)).toEqual(["response.output_item.added", "response.content_part.added"]);
    expect(reasoningDone).toBeGreaterThan(types.indexOf("response.reasoning_text.delta"));
    // The reasoning item is closed before the message opens.
    expect(types.indexOf("response.output_text.delta")).toBeGreaterThan(reasoningDone);
    const reasoning = list
      .filter((e) => e.type === "response.reasoning_text.delta")
      .map((e) => (e as { delta: string }).delta)
      .join("");
    expect(reasoning).toMatch(/^Okay, the/);
    const final = await sdkFinal(sse);
    expect(final.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    expect(final.output[0]).toMatchObject({
      id: "rs_20261124050000abcd123456_0",
      status: "completed",
      summary: [],
      content: [{ type: "reasoning_text", text: reasoning }],
    });
    expect(final.output_text).toMatch(/help\?$/);
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 30 });
  });

  it("ends a stream cut short by the token limit with response.incomplete", async () => {
    const relayed =
      'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Once upon"}}]}\n\n' +
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}\n\ndata: [DONE]\n\n';
    const sse = encode(relayed, { max_output_tokens: 2 });
    const last = events(sse).at(-1) as Extract<ResponseStreamEvent, { type: "response.incomplete" }>;
    expect(last.type).toBe("response.incomplete");
    expect(last.response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      max_output_tokens: 2,
      output: [{ type: "message", status: "incomplete", content: [{ type: "output_text", text: "Once upon" }] }],
    });
    expect((await sdkFinal(sse)).output_text).toBe("Once upon");
  });

  it("ends a failed stream with an error event and response.failed holding what was sent", async () => {
    const sse = encode(`${chunks("openai-error-midstream.chunks.txt")}data: [DONE]\n\n`);
    const list = events(sse);
    expect(list.map((e) => e.type).slice(-2)).toEqual(["error", "response.failed"]);
    expect(list.at(-2)).toMatchObject({ type: "error", code: "server_error", message: expect.stringMatching(/server had an error/) });
    const failed = list.at(-1) as Extract<ResponseStreamEvent, { type: "response.failed" }>;
    expect(failed.response).toMatchObject({ status: "failed", error: { code: "server_error" } });
    expect(failed.response.output).toMatchObject([{ type: "message", status: "incomplete" }]);
    // The SDK's helper rejects with the error event.
    await expect(sdkFinal(sse)).rejects.toMatchObject({ type: "error" });
  });

  it("opens the response before an error that comes first", () => {
    const sse = encode(
      'data: {"error":{"message":"upstream stream timed out","type":"upstream_error","code":"stream_timeout"}}\n\ndata: [DONE]\n\n',
    );
    expect(events(sse).map((e) => e.type)).toEqual(["response.created", "response.in_progress", "error", "response.failed"]);
  });

  it("completes an empty answer", async () => {
    const sse = encode('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0}}\n\ndata: [DONE]\n\n');
    expect(events(sse).map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.completed"]);
    expect((await sdkFinal(sse)).output).toEqual([]);
  });
});
