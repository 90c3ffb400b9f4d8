import { describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import { remoteImageUrls } from "../../request/images";
import { anthropicMessages, claudeGeneration, claudeRequest, defaultMaxTokens } from "./convert-request";

const M = "claude-3-5-sonnet-20241022";
/** A model that thinks (extended thinking came with Claude 3.7). */
const THINKER = "claude-sonnet-4-20250514";
const PNG = "iVBORw0KGgo=";

describe("anthropicMessages", () => {
  it("moves system messages out, merges same-role turns and keeps tool turns together", () => {
    const body = anthropicMessages(
      {
        model: "x",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Use tools." }] },
          { role: "user", content: "Weather in SF and the time?" },
          { role: "user", content: [{ type: "text", text: "Please." }] },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } },
              { id: "call_2", type: "function", function: { name: "get_time", arguments: "{not json" } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "18C" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "09:00" }] },
          { role: "user", content: "Thanks" },
        ],
      },
      M,
    );
    expect(body).toEqual({
      model: M,
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use tools." },
      ],
      max_tokens: 8192,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather in SF and the time?" },
            { type: "text", text: "Please." },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "SF" } },
            { type: "tool_use", id: "call_2", name: "get_time", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "18C" },
            { type: "tool_result", tool_use_id: "call_2", content: "09:00" },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    });
  });

  it("maps sampling, stop, user, stream, tools and every tool_choice", () => {
    const base = {
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 100,
      temperature: 1.5,
      top_p: 0.9,
      top_k: 40,
      stop: "END",
      user: "u-42",
      stream: true,
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        },
        { type: "function", function: { name: "noop" } },
      ],
    };
    const body = anthropicMessages({ ...base, tool_choice: "auto" }, "claude-3-haiku-20240307");
    expect(body).toMatchObject({
      max_tokens: 100,
      temperature: 1,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END"],
      metadata: { user_id: "u-42" },
      stream: true,
      tools: [
        { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
        { name: "noop", input_schema: { type: "object", properties: {} } },
      ],
      tool_choice: { type: "auto" },
    });
    expect(anthropicMessages({ ...base, tool_choice: "required" }, M).tool_choice).toEqual({ type: "any" });
    expect(anthropicMessages({ ...base, tool_choice: "none" }, M).tool_choice).toEqual({ type: "none" });
    expect(anthropicMessages({ ...base, tool_choice: { type: "function", function: { name: "noop" } } }, M).tool_choice).toEqual({
      type: "tool",
      name: "noop",
    });
    expect(anthropicMessages({ ...base, parallel_tool_calls: false }, M).tool_choice).toEqual({
      type: "auto",
      disable_parallel_tool_use: true,
    });
    expect(anthropicMessages({ ...base, stop: ["a", "", "b"] }, M).stop_sequences).toEqual(["a", "b"]);
    expect(anthropicMessages({ messages: base.messages, max_completion_tokens: 77 }, M).max_tokens).toBe(77);
  });

  it("picks a per-model default max_tokens", () => {
    expect(defaultMaxTokens("claude-3-5-sonnet-20241022")).toBe(8192);
    expect(defaultMaxTokens("claude-3-5-haiku-20241022")).toBe(8192);
    expect(defaultMaxTokens("claude-sonnet-4-20250514")).toBe(8192);
    expect(defaultMaxTokens("claude-3-opus-20240229")).toBe(4096);
    expect(defaultMaxTokens("claude-2.1")).toBe(4096);
  });

  it("turns reasoning_effort or thinking into a thinking budget that fits max_tokens", () => {
    const messages = [{ role: "user", content: "think" }];
    expect(claudeRequest({ messages, reasoning_effort: "high", temperature: 0.2, top_k: 5 }, THINKER)).toEqual({
      body: {
        model: THINKER,
        messages: [{ role: "user", content: [{ type: "text", text: "think" }] }],
        max_tokens: 24576 + 8192,
        thinking: { type: "enabled", budget_tokens: 24576 },
      },
      dropped: [],
    });
    expect(anthropicMessages({ messages, reasoning_effort: "medium" }, THINKER).thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    const hot = anthropicMessages({ messages, reasoning_effort: "low", temperature: 0.2, top_k: 5, top_p: 0.5 }, THINKER);
    expect(hot.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(hot.temperature).toBeUndefined();
    expect(hot.top_k).toBeUndefined();
    expect(hot.top_p).toBeUndefined();
    expect(anthropicMessages({ messages, reasoning_effort: "low", top_p: 0.97 }, THINKER).top_p).toBe(0.97);
    expect(anthropicMessages({ messages, thinking: { type: "enabled", budget_tokens: 5000 }, max_tokens: 3000 }, THINKER)).toMatchObject({
      max_tokens: 3000,
      thinking: { type: "enabled", budget_tokens: 2999 },
    });
    const tooSmall = claudeRequest({ messages, reasoning_effort: "medium", max_tokens: 800 }, THINKER);
    expect(tooSmall.body.thinking).toBeUndefined();
    expect(tooSmall.body.max_tokens).toBe(800);
    expect(tooSmall.dropped).toEqual(["reasoning_effort"]);
    expect(claudeRequest({ messages, reasoning_effort: "minimal" }, THINKER)).toMatchObject({ dropped: [] });
    expect(anthropicMessages({ messages, reasoning_effort: "minimal" }, THINKER).thinking).toBeUndefined();
  });

  it("thinks only on models that think, never with a forced tool or inside a tool loop, naming what it left out", () => {
    const messages = [{ role: "user", content: "think" }];
    const old = claudeRequest({ messages, reasoning_effort: "high", temperature: 0.3 }, M);
    expect(old.body.thinking).toBeUndefined();
    expect(old.body.temperature).toBe(0.3);
    expect(old.body.max_tokens).toBe(8192);
    expect(old.dropped).toEqual(["reasoning_effort"]);
    const tools = [{ type: "function", function: { name: "t", parameters: { type: "object" } } }];
    const forced = claudeRequest({ messages, tools, tool_choice: "required", reasoning_effort: "low" }, THINKER);
    expect(forced.body.thinking).toBeUndefined();
    expect(forced.dropped).toEqual(["reasoning_effort"]);
    const loop = claudeRequest(
      {
        tools,
        reasoning_effort: "low",
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "ok" },
        ],
      },
      THINKER,
    );
    expect(loop.body.thinking).toBeUndefined();
    expect(loop.dropped).toEqual(["reasoning_effort"]);
    expect(claudeRequest({ messages, thinking: { type: "enabled", budget_tokens: 4000 } }, M).dropped).toEqual(["thinking"]);
  });

  it.each([
    ["claude-3-5-sonnet-20241022", 305],
    ["claude-3-7-sonnet-20250219", 307],
    ["claude-sonnet-4-20250514", 400],
    ["claude-opus-4-1-20250805", 401],
    ["claude-sonnet-4-5-20250929", 405],
    ["claude-haiku-4-5", 405],
    ["us.anthropic.claude-opus-4-5-20251101-v1:0", 405],
    ["claude-sonnet-4-5@20250929", 405],
    ["claude-sonnet-5", 500],
    ["claude-2.1", null],
    ["gpt-4o", null],
  ])("reads %s as Claude generation %s", (model, generation) => {
    expect(claudeGeneration(model)).toBe(generation);
  });

  it("clamps max_tokens to the model's output limit, the channel's when given", () => {
    const messages = [{ role: "user", content: "hi" }];
    expect(anthropicMessages({ messages, max_tokens: 128000 }, "claude-sonnet-4-5-20250929").max_tokens).toBe(64000);
    expect(anthropicMessages({ messages, max_tokens: 128000 }, "claude-opus-4-1-20250805").max_tokens).toBe(32000);
    expect(anthropicMessages({ messages, max_tokens: 128000 }, "claude-sonnet-4-5", { outputLimit: 20000 }).max_tokens).toBe(20000);
    expect(anthropicMessages({ messages, max_tokens: 128000 }, "claude-next", { outputLimit: null }).max_tokens).toBe(128000);
    // Thinking fits under the clamped limit.
    expect(anthropicMessages({ messages, max_tokens: 128000, reasoning_effort: "high" }, "claude-opus-4-1-20250805")).toMatchObject({
      max_tokens: 32000,
      thinking: { type: "enabled", budget_tokens: 24576 },
    });
  });

  it("merges system messages from anywhere in the conversation into system, in order", () => {
    const body = anthropicMessages(
      {
        messages: [
          { role: "system", content: "You are Claude Code." },
          { role: "user", content: "hi" },
          { role: "assistant", content: "Hello." },
          { role: "system", content: "Plan mode: do not edit files." },
          { role: "user", content: "go on" },
        ],
      },
      THINKER,
    );
    expect(body.system).toEqual([
      { type: "text", text: "You are Claude Code." },
      { type: "text", text: "Plan mode: do not edit files." },
    ]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
      { role: "user", content: [{ type: "text", text: "go on" }] },
    ]);
  });

  it("sends a json_schema as Claude's structured output where the upstream takes it, else as an instruction named dropped", () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false };
    const canonical = {
      messages: [
        { role: "system", content: "Count." },
        { role: "user", content: "how many?" },
      ],
      response_format: { type: "json_schema", json_schema: { name: "count", schema } },
    };
    const native = claudeRequest(canonical, "claude-sonnet-4-5-20250929", { structuredOutput: true });
    expect(native.body.output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(native.body.system).toBe("Count.");
    expect(native.dropped).toEqual([]);
    for (const [model, opts] of [
      ["claude-sonnet-4-5-20250929", {}],
      ["claude-3-5-sonnet-20241022", { structuredOutput: true }],
    ] as const) {
      const degraded = claudeRequest(canonical, model, opts);
      expect(degraded.body.output_config).toBeUndefined();
      expect(degraded.body.system).toEqual([
        { type: "text", text: "Count." },
        {
          type: "text",
          text: `Respond with a single JSON object and nothing else, valid against this JSON schema:\n${JSON.stringify(schema)}`,
        },
      ]);
      expect(degraded.dropped).toEqual(["response_format"]);
    }
    const object = claudeRequest({ messages: [{ role: "user", content: "hi" }], response_format: { type: "json_object" } }, M, {
      structuredOutput: true,
    });
    expect(object.body.system).toBe("Respond with a single JSON object and nothing else.");
    expect(object.dropped).toEqual(["response_format"]);
  });

  it("decodes data: images and uses fetched ones for http(s) URLs", () => {
    const canonical = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    };
    expect(remoteImageUrls(canonical)).toEqual(["https://example.com/cat.jpg"]);
    const images = new Map([["https://example.com/cat.jpg", { mediaType: "image/jpeg", base64: "/9j/4AAQ" }]]);
    const body = anthropicMessages(canonical, M, { images });
    expect((body.messages as { content: unknown[] }[])[0]!.content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
    ]);
    // An http(s) image nobody fetched is refused rather than sent as a broken block.
    expect(() => anthropicMessages(canonical, M)).toThrow(RelayError);
  });

  it("starts with a user turn, and refuses bodies no Claude model could take", () => {
    const body = anthropicMessages(
      {
        messages: [
          { role: "system", content: "s" },
          { role: "assistant", content: "Sure" },
        ],
      },
      M,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "..." }] },
      { role: "assistant", content: [{ type: "text", text: "Sure" }] },
    ]);
    for (const messages of [
      [],
      "hi",
      [{ role: "system", content: "only" }],
      [{ role: "wizard", content: "x" }],
      [{ role: "tool", content: "x" }],
    ]) {
      let err: unknown;
      try {
        anthropicMessages({ messages }, M);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(messages)).toBeInstanceOf(RelayError);
      expect((err as RelayError).status).toBe(400);
      expect((err as RelayError).local).toBe(true);
    }
  });
});
