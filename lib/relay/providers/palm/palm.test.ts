import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import type { UpstreamRequest } from "../types";
import { palm, toChatChunk, toChatCompletion, toGenerateMessage } from "./index";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8")) as unknown;
const ctx = { id: "chatcmpl-p", created: 1700000000, model: "PaLM-2", promptTokens: 8 };

const channel: ChannelConfig = {
  id: 11,
  type: 11,
  name: "p",
  key: "AIza-palm",
  base_url: "",
  other: "",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
};

describe("PaLM2 generateMessage", () => {
  it("puts system messages in the context and numbers the authors", () => {
    expect(
      toGenerateMessage({
        messages: [
          { role: "system", content: "Be kind." },
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "assistant", content: "hello" },
          { role: "user", content: "bye" },
        ],
        temperature: 0.5,
        top_p: 0.8,
        top_k: 20,
        n: 2,
      }),
    ).toEqual({
      prompt: {
        context: "Be kind.",
        messages: [
          { author: "0", content: "hi" },
          { author: "1", content: "hello" },
          { author: "0", content: "bye" },
        ],
      },
      temperature: 0.5,
      topP: 0.8,
      topK: 20,
      candidateCount: 2,
    });
    expect(() => toGenerateMessage({ messages: [{ role: "system", content: "x" }] })).toThrow(/no user or assistant/);
  });

  it("answers from candidates with locally counted usage, and filters as content_filter", () => {
    const answer = toChatCompletion(fixture("generate-message.json"), ctx) as {
      choices: unknown[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(answer.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "Hello! How can I help you today?" }, logprobs: null, finish_reason: "stop" },
    ]);
    expect(answer.usage.prompt_tokens).toBe(8);
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);
    expect(toChatCompletion(fixture("generate-message-filtered.json"), ctx)).toMatchObject({
      choices: [{ message: { content: "" }, finish_reason: "content_filter" }],
      usage: { completion_tokens: 0 },
    });
    expect(toChatChunk(fixture("generate-message.json"), ctx)).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ delta: { role: "assistant", content: "Hello! How can I help you today?" }, finish_reason: "stop" }],
    });
    expect(toChatCompletion({ error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } }, ctx)).toMatchObject({
      error: { message: "bad" },
    });
  });

  it("calls chat-bison-001 for PaLM-2 and frames a stream request's whole answer as one event", () => {
    const body = { model: "PaLM-2", messages: [{ role: "user", content: "hi" }], stream: true };
    const up = palm.buildRequest({
      channel,
      mode: "chat",
      upstreamModel: "PaLM-2",
      clientPath: "/v1/chat/completions",
      body: JSON.stringify(body),
      contentType: "application/json",
      stream: true,
      json: body,
    }) as UpstreamRequest;
    expect(up.url).toBe("https://generativelanguage.googleapis.com/v1beta2/models/chat-bison-001:generateMessage");
    expect(up.headers).toMatchObject({ "x-goog-api-key": "AIza-palm", Accept: "application/json" });
    const raw = readFileSync(path.join(import.meta.dirname, "__fixtures__", "generate-message.json"));
    const events: string[] = [];
    const sink = { event: (data: string) => events.push(data), sse: () => expect.unreachable("not SSE") };
    up.framing!.push(raw.subarray(0, 20), sink);
    up.framing!.push(raw.subarray(20), sink);
    expect(events).toEqual([]);
    up.framing!.end(sink);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^\{.*\}$/);
    expect(up.response!.streamEvent!(JSON.parse(events[0]!))).toMatchObject({ choices: [{ finish_reason: "stop" }] });
    const other = palm.buildRequest({
      channel,
      mode: "chat",
      upstreamModel: "chat-bison-001",
      clientPath: "/v1/chat/completions",
      body: JSON.stringify(body),
      contentType: "application/json",
      stream: true,
      json: body,
    }) as UpstreamRequest;
    other.framing!.push(Buffer.from("<html>proxy</html>"), sink);
    other.framing!.end(sink);
    expect(events).toHaveLength(2);
    expect(other.response!.streamEvent!(JSON.parse(events[1]!))).toMatchObject({
      error: { message: "PaLM answered something that is not JSON" },
    });
  });
});
