// Reading OpenAI's Responses answers (passed through to Responses callers) for usage and errors.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeUsage } from "../openai/usage";
import { responsesPassthrough, responsesReader } from "./openai-responses";
import type { BuildRequestInput } from "./types";
import { unknownEventCounts } from "./unknown-events";

const USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 1024 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 32 },
  total_tokens: 1240,
};

const response = (extra: Record<string, unknown> = {}) => ({
  id: "resp_1",
  object: "response",
  created_at: 1_741_476_542,
  status: "completed",
  error: null,
  incomplete_details: null,
  model: "gpt-4o-mini-2024-07-18",
  output: [
    { type: "web_search_call", id: "ws_1", status: "completed" },
    { type: "message", id: "msg_1", role: "assistant", content: [{ type: "output_text", text: "Hi!", annotations: [] }] },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "w", arguments: "{}" },
  ],
  usage: USAGE,
  ...extra,
});

describe("responsesReader", () => {
  it("reads a whole Response as a chat.completion with its text, calls and usage", () => {
    const out = JSON.parse(responsesReader().json(response()).body);
    expect(out.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: "Hi!",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: "{}" } }],
      },
      finish_reason: "tool_calls",
    });
    expect(out.usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 40,
      total_tokens: 1240,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 32 },
    });
    expect(normalizeUsage(out.usage)).toMatchObject({
      prompt_tokens: 1200,
      cached_tokens: 1024,
      completion_tokens: 40,
      reasoning_tokens: 32,
    });
  });

  it("reads an incomplete Response's reason, and a failed one as OpenAI's error", () => {
    const cut = JSON.parse(
      responsesReader().json(response({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [] })).body,
    );
    expect(cut.choices[0].finish_reason).toBe("length");
    const failed = JSON.parse(
      responsesReader().json(response({ status: "failed", error: { code: "server_error", message: "boom" } })).body,
    );
    expect(failed).toEqual({ error: { message: "boom", type: "upstream_error", code: "server_error" } });
  });

  it("maps stream events: text deltas, the final usage, failures; drops the rest", () => {
    const r = responsesReader();
    expect(r.streamEvent!({ type: "response.created", response: response({ status: "in_progress", usage: null }) })).toBeNull();
    expect(r.streamEvent!({ type: "response.output_text.delta", delta: "Hi" })).toMatchObject({
      choices: [{ index: 0, delta: { content: "Hi" } }],
    });
    expect(r.streamEvent!({ type: "response.output_item.done", item: {} })).toBeNull();
    expect(r.streamEvent!({ type: "response.completed", response: response() })).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1200, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 1024 } },
    });
    expect(r.streamEvent!({ type: "response.incomplete", response: response({ status: "incomplete" }) })).toMatchObject({
      usage: { completion_tokens: 40 },
    });
    expect(
      r.streamEvent!({
        type: "response.failed",
        response: response({ status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } }),
      }),
    ).toEqual({
      error: { message: "slow down", type: "upstream_error", code: "rate_limit_exceeded" },
    });
    expect(r.streamEvent!({ type: "error", code: "server_error", message: "oops", param: null })).toEqual({
      error: { message: "oops", type: "upstream_error", code: "server_error" },
    });
  });
});

describe("responsesPassthrough", () => {
  it("counts an event type it does not know and still reads the final usage after it", () => {
    const r = responsesReader();
    const before = unknownEventCounts().get("openai-responses:response.future_event") ?? 0;
    expect(r.streamEvent!({ type: "response.future_event" })).toBeNull();
    expect(unknownEventCounts().get("openai-responses:response.future_event")).toBe(before + 1);
    expect(r.streamEvent!({ type: "response.completed", response: response() })).toMatchObject({ choices: [], usage: {} });
  });

  it("sends the caller's bytes with only the model set, and marks the answer as passed through", () => {
    const raw = '{"model":"a", "input":"hi","tools":[{"type":"web_search"}],"seed":1.0}';
    const input = {
      channel: { id: 1, key: "k" },
      mode: "chat",
      upstreamModel: "b",
      clientPath: "/v1/responses",
      body: raw,
      contentType: "application/json",
      stream: false,
      json: JSON.parse(raw),
    } as unknown as BuildRequestInput;
    const up = responsesPassthrough(input, "https://x/v1/responses", { Authorization: "Bearer k" });
    expect(Buffer.from(up.body).toString()).toBe('{"model":"b", "input":"hi","tools":[{"type":"web_search"}],"seed":1.0}');
    expect(up).toMatchObject({ url: "https://x/v1/responses", passthrough: true, forcedIncludeUsage: false });
    expect(up.headers).toEqual({ "Content-Type": "application/json", Authorization: "Bearer k" });
  });

  it("keeps the headers OpenAI's clients rely on, never the caller's credentials or account", () => {
    const sent = new Headers({
      authorization: "Bearer sk-qiao-caller",
      "api-key": "caller-azure-key",
      cookie: "s=1",
      "openai-organization": "org-caller",
      "openai-project": "proj_caller",
      session_id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      conversation_id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      originator: "codex_cli_rs",
      version: "0.163.0",
      "openai-beta": "responses=experimental",
      "user-agent": "codex_cli_rs/0.163.0 (Debian 12; x86_64) xterm-256color",
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
      "content-type": "text/plain",
    });
    const input = {
      channel: { id: 1, key: "k" },
      upstreamModel: "b",
      body: '{"model":"a","input":"hi","stream":true}',
      stream: true,
      callerHeaders: sent,
    } as unknown as BuildRequestInput;
    const up = responsesPassthrough(input, "https://x/v1/responses", { Authorization: "Bearer k", "OpenAI-Organization": "org-channel" });
    expect(up.headers).toEqual({
      session_id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      conversation_id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      originator: "codex_cli_rs",
      version: "0.163.0",
      "openai-beta": "responses=experimental",
      "user-agent": "codex_cli_rs/0.163.0 (Debian 12; x86_64) xterm-256color",
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
      "Content-Type": "application/json",
      Authorization: "Bearer k",
      "OpenAI-Organization": "org-channel",
      Accept: "text/event-stream",
    });
  });

  it("keeps every header Codex 0.171 sent (recorded), with a Node-style header reader as well", () => {
    const file = path.join(import.meta.dirname, "../../../tests/fixtures/agents/codex/plain.json");
    const recorded: Record<string, string> = JSON.parse(readFileSync(file, "utf8")).requests[0].headers;
    // The recording drops credentials; the caller's own key comes with it, as on the wire.
    const sent = { ...recorded, authorization: "Bearer sk-qiao-caller", "x-openai-organization-hint": "org-caller" };
    // The Node entry's reader: only `get` and `keys`, names in lower case.
    const nodeStyle = { get: (name: string) => sent[name as keyof typeof sent] ?? null, keys: () => Object.keys(sent) };
    for (const callerHeaders of [new Headers(sent), nodeStyle]) {
      const input = {
        channel: { id: 1, key: "k" },
        upstreamModel: "gpt-5.4",
        body: '{"model":"gpt-6.2-sol","input":"hi","stream":true}',
        stream: true,
        callerHeaders,
      } as unknown as BuildRequestInput;
      const up = responsesPassthrough(input, "https://x/v1/responses", { Authorization: "Bearer k" });
      const forwarded = Object.keys(recorded).filter((n) => n !== "accept" && n !== "content-type");
      expect(Object.keys(up.headers).sort()).toEqual([...forwarded, "Accept", "Authorization", "Content-Type"].sort());
      for (const name of forwarded) expect(up.headers[name]).toBe(recorded[name]);
      expect(up.headers).toMatchObject({
        "session-id": recorded["session-id"],
        "thread-id": recorded["thread-id"],
        "x-openai-internal-codex-responses-lite": "true",
        "x-codex-window-id": recorded["x-codex-window-id"],
        Authorization: "Bearer k",
      });
      expect(JSON.parse(up.headers["x-codex-turn-metadata"]!).model).toBe("gpt-6.2-sol");
    }
  });
});
