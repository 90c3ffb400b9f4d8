import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseUpstreamError, shouldDisableChannel, shouldRetry } from "../../errors";
import { normalizeUsage } from "../../openai/usage";
import { anthropicResponseConverter, anthropicToOpenAI } from "./convert-response";
import { finishReason } from "./finish-reason";
import { unknownEventCounts } from "../unknown-events";

const fixture = (name: string) => readFileSync(join(__dirname, "__fixtures__", name), "utf8");
const ctx = { created: 1_700_000_000, model: "claude-3-5-sonnet-20241022" };

/** The `data:` payloads of a recorded SSE body, parsed. */
function events(sse: string): unknown[] {
  return sse
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)));
}

describe("Anthropic answers → OpenAI", () => {
  it("converts a text message, counting cache reads and writes into the prompt", () => {
    const out = anthropicToOpenAI(JSON.parse(fixture("message-text.json")), ctx);
    expect(out).toEqual({
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      object: "chat.completion",
      created: ctx.created,
      model: "claude-3-5-sonnet-20241022",
      choices: [
        { index: 0, message: { role: "assistant", content: "Hello! How can I help you today?" }, logprobs: null, finish_reason: "stop" },
      ],
      usage: {
        prompt_tokens: 1212,
        completion_tokens: 9,
        total_tokens: 1221,
        prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
      },
    });
    expect(normalizeUsage(out.usage)).toMatchObject({
      prompt_tokens: 1212,
      completion_tokens: 9,
      cached_tokens: 1000,
      cache_write_tokens: 200,
    });
  });

  it("converts thinking and tool use", () => {
    const out = anthropicToOpenAI(JSON.parse(fixture("message-tool-use.json")), ctx) as {
      choices: { message: unknown; finish_reason: string }[];
    };
    expect(out.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Let me check the weather.",
        reasoning_content: "The user wants the weather; call the tool.",
        tool_calls: [
          {
            id: "toolu_01A09q90qw90lq917835lq9",
            type: "function",
            function: { name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
          },
        ],
      },
    });
  });

  it("maps stop reasons and turns error bodies into OpenAI's", () => {
    expect(["end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal"].map(finishReason)).toEqual([
      "stop",
      "stop",
      "length",
      "tool_calls",
      "content_filter",
    ]);
    expect(anthropicToOpenAI(JSON.parse(fixture("error-overloaded.json")), ctx)).toEqual({
      error: { message: "Overloaded", type: "overloaded_error", param: null, code: "overloaded_error" },
    });
  });

  it("streams text with the usage on a final choices-less chunk", () => {
    const conv = anthropicResponseConverter("claude-3-5-sonnet-20241022", 1_700_000_000_000);
    const chunks = events(fixture("stream-text.sse"))
      .map((e) => conv.streamEvent!(e))
      .filter((c) => c !== null) as Record<string, any>[];
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: "assistant", content: "" },
      { content: "Hello! How " },
      { content: "can I help you today?" },
      {},
      null,
    ]);
    expect(chunks[3]!.choices[0].finish_reason).toBe("stop");
    expect(chunks.every((c) => c.id === "msg_01TextStream" && c.object === "chat.completion.chunk" && c.created === 1_700_000_000)).toBe(
      true,
    );
    expect(chunks[4]).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 1212,
        completion_tokens: 9,
        total_tokens: 1221,
        prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
      },
    });
  });

  it("streams thinking, text and two tool calls with their own indexes", () => {
    const conv = anthropicResponseConverter("m");
    const chunks = events(fixture("stream-tool-use.sse"))
      .map((e) => conv.streamEvent!(e))
      .filter((c) => c !== null) as Record<string, any>[];
    const deltas = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0].delta);
    expect(deltas).toEqual([
      { role: "assistant", content: "" },
      { reasoning_content: "Need the weather tool." },
      { content: "Okay, let's check the weather." },
      {
        tool_calls: [
          { index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: "" } },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"location": "San Fra' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'ncisco, CA"}' } }] },
      { tool_calls: [{ index: 1, id: "toolu_02Second", type: "function", function: { name: "get_time", arguments: "" } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"tz":"PST"}' } }] },
      {},
    ]);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it("turns a stream's error event into OpenAI's error", () => {
    const conv = anthropicResponseConverter("m");
    const out = events(fixture("stream-error.sse")).map((e) => conv.streamEvent!(e));
    expect(out.at(-1)).toEqual({ error: { message: "Overloaded", type: "overloaded_error", param: null, code: "overloaded_error" } });
  });

  it("reads Anthropic's error bodies with the relay's rules: 529 retried, 401 disables the channel", () => {
    const overloaded = parseUpstreamError(529, fixture("error-overloaded.json"));
    expect(overloaded).toMatchObject({ status: 529, message: "Overloaded", type: "overloaded_error" });
    expect(shouldRetry(529, 14)).toBe(true);
    expect(shouldDisableChannel(529, overloaded, 14)).toBe(false);
    const auth = parseUpstreamError(401, fixture("error-authentication.json"));
    expect(auth).toMatchObject({ message: "invalid x-api-key", type: "authentication_error" });
    expect(shouldDisableChannel(401, auth, 14)).toBe(true);
    // Anthropic's 400s are retried on the next channel (new-api's rule for type 14).
    expect(shouldRetry(400, 14)).toBe(true);
    expect(shouldRetry(400, 33)).toBe(false);
  });

  it("bills compaction rounds, which the top-level counts leave out (usage.iterations)", () => {
    const whole = anthropicToOpenAI(JSON.parse(fixture("message-compaction.json")), ctx) as Record<string, any>;
    expect(whole.choices[0].message).toEqual({
      role: "assistant",
      content: "Based on our conversation so far, the billing change is ready.",
    });
    expect(normalizeUsage(whole.usage)).toMatchObject({ prompt_tokens: 203_000, completion_tokens: 4_500 });

    const conv = anthropicResponseConverter("m");
    const chunks = events(fixture("stream-compaction.sse"))
      .map((e) => conv.streamEvent!(e))
      .filter((c) => c !== null) as Record<string, any>[];
    expect(chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0].delta)).toEqual([
      { role: "assistant", content: "" },
      { content: "The billing change is ready." },
      {},
    ]);
    expect(normalizeUsage(chunks.at(-1)!.usage)).toMatchObject({ prompt_tokens: 203_000, completion_tokens: 4_500 });
  });

  it("counts an event type it does not know and still ends the stream with the usage chunk", () => {
    const conv = anthropicResponseConverter("m");
    const before = unknownEventCounts().get("anthropic:content_block_future") ?? 0;
    const recorded = events(fixture("stream-text.sse"));
    recorded.splice(3, 0, { type: "content_block_future", index: 0 });
    const chunks = recorded.map((e) => conv.streamEvent!(e)).filter((c) => c !== null) as Record<string, any>[];
    expect(unknownEventCounts().get("anthropic:content_block_future")).toBe(before + 1);
    expect(chunks).toHaveLength(5);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1212, completion_tokens: 9 } });
  });
});
