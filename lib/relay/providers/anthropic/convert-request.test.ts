import { describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import { remoteImageUrls } from "../../request/images";
import { anthropicMessages, defaultMaxTokens } from "./convert-request";

const M = "claude-3-5-sonnet-20241022";
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
    expect(anthropicMessages({ messages, reasoning_effort: "high", temperature: 0.2, top_k: 5 }, M)).toMatchObject({
      max_tokens: 16384 + 8192,
      thinking: { type: "enabled", budget_tokens: 16384 },
    });
    const hot = anthropicMessages({ messages, reasoning_effort: "low", temperature: 0.2, top_k: 5 }, M);
    expect(hot.temperature).toBeUndefined();
    expect(hot.top_k).toBeUndefined();
    expect(anthropicMessages({ messages, thinking: { type: "enabled", budget_tokens: 5000 }, max_tokens: 3000 }, M)).toMatchObject({
      max_tokens: 3000,
      thinking: { type: "enabled", budget_tokens: 2999 },
    });
    const tooSmall = anthropicMessages({ messages, reasoning_effort: "medium", max_tokens: 800 }, M);
    expect(tooSmall.thinking).toBeUndefined();
    expect(tooSmall.max_tokens).toBe(800);
    expect(anthropicMessages({ messages, reasoning_effort: "minimal" }, M).thinking).toBeUndefined();
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
