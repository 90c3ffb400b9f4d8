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

  it("passes a caller's body through byte for byte but the model, with only the allow-listed headers", () => {
    const raw = '{"model":"claude-x",  "max_tokens":64000,"messages":[{"role":"system","content":"mid"}],"stream":true}';
    const caller = new Headers({
      "x-api-key": "sk-caller",
      authorization: "Bearer sk-caller",
      cookie: "session=1",
      "x-forwarded-for": "10.0.0.1",
      "anthropic-beta": "claude-code-20250219,per-turn-control-2026-07-01",
      "anthropic-dangerous-direct-browser-access": "true",
      "x-app": "cli",
      "x-claude-code-session-id": "s-1",
      "user-agent": "claude-cli/2.1.3 (external, cli)",
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
      "x-stainless-unknown-future": "1",
    });
    const r = anthropic.native!.anthropic!(
      input({ body: raw, json: JSON.parse(raw), stream: true, upstreamModel: "claude-sonnet-4-5", callerHeaders: caller }),
    ) as UpstreamRequest;
    expect(Buffer.from(r.body).toString()).toBe(raw.replace('"claude-x"', '"claude-sonnet-4-5"'));
    expect(r.headers).toEqual({
      "Content-Type": "application/json",
      Accept: "text/event-stream",
      "x-api-key": "sk-ant",
      // The caller sent none: Qiao's version.
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "claude-code-20250219,per-turn-control-2026-07-01",
      "anthropic-dangerous-direct-browser-access": "true",
      "x-app": "cli",
      "x-claude-code-session-id": "s-1",
      "user-agent": "claude-cli/2.1.3 (external, cli)",
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
    });
    expect(r.passthrough).toBe(true);
  });

  it("names what the converted request left out", () => {
    const json = { model: "claude-3-haiku-20240307", messages: [{ role: "user", content: "hi" }], reasoning_effort: "high" };
    const r = anthropic.buildRequest(input({ json, body: JSON.stringify(json) })) as UpstreamRequest;
    expect(JSON.parse(r.body as string).thinking).toBeUndefined();
    expect(r.dropped).toEqual(["reasoning_effort"]);
  });

  it("serves chat only", () => {
    expect(() => anthropic.buildRequest(input({ mode: "embeddings", clientPath: "/v1/embeddings" }))).toThrow(RelayError);
  });
});
