import { describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { anthropic } from "./index";

function input(over: Partial<BuildRequestInput> = {}): BuildRequestInput {
  const json = { model: "claude-3-haiku-20240307", messages: [{ role: "user", content: "hi" }], group: "vip" };
  return {
    channel: {
      id: 3,
      type: 14,
      name: "c",
      key: "sk-ant",
      base_url: "",
      other: "",
      openai_organization: "",
      model_mapping: {},
      status_code_mapping: {},
      auto_ban: true,
    },
    mode: "chat",
    upstreamModel: "claude-3-haiku-20240307",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: false,
    json,
    ...over,
  };
}

describe("Anthropic adapter", () => {
  it("posts to the catalogue's or the channel's base URL with Anthropic's headers", () => {
    const r = anthropic.buildRequest(input()) as UpstreamRequest;
    expect(r.url).toBe("https://api.anthropic.com/v1/messages");
    expect(r.headers).toEqual({ "Content-Type": "application/json", "x-api-key": "sk-ant", "anthropic-version": "2023-06-01" });
    expect(JSON.parse(r.body as string)).toEqual({
      model: "claude-3-haiku-20240307",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      max_tokens: 4096,
    });
    const streamed = anthropic.buildRequest(
      input({ stream: true, channel: { ...input().channel, base_url: "https://proxy.example/claude//" } }),
    ) as UpstreamRequest;
    expect(streamed.url).toBe("https://proxy.example/claude/v1/messages");
    expect(streamed.headers.Accept).toBe("text/event-stream");
    expect(JSON.parse(streamed.body as string).stream).toBe(true);
    expect(streamed.framing).toBeUndefined();
  });

  it("serves chat only", () => {
    expect(() => anthropic.buildRequest(input({ mode: "embeddings", clientPath: "/v1/embeddings" }))).toThrow(RelayError);
  });
});
