// The canonical whole answer → an Anthropic Message, and the error shape.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicProtocol } from "./index";
import { anthropicUsage, encodeMessage, stopReason } from "./encode-response";
import { errorTypeFor, streamErrorType } from "./errors";
import { upstreamToolName } from "./tool-names";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8"));
const info = { requestId: "20261124050000abcd123456", model: "claude-sonnet-4-5", created: 0, request: {} };

describe("encodeMessage", () => {
  it("turns a chat.completion with tool calls into text and tool_use blocks with parsed input", () => {
    expect(encodeMessage(fixture("openai-tool-answer.json"), info)).toEqual({
      id: "msg_20261124050000abcd123456",
      type: "message",
      role: "assistant",
      // the model as the caller named it, not the upstream's
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "I'll check the weather in both cities." },
        { type: "tool_use", id: "call_Qx1", name: "get_weather", input: { city: "Paris", unit: "c" } },
        { type: "tool_use", id: "call_Qx2", name: "get_weather", input: { city: "Rome" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      // input_tokens leaves out the cache reads OpenAI counts in prompt_tokens
      usage: { input_tokens: 128, output_tokens: 41, cache_read_input_tokens: 1920, cache_creation_input_tokens: 0 },
    });
  });

  it("puts reasoning first as a thinking block, and maps the finish reason", () => {
    const out = encodeMessage(
      {
        choices: [
          { index: 0, message: { role: "assistant", content: "Yes.", reasoning_content: "Let me think." }, finish_reason: "length" },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      },
      info,
    );
    expect(out.content).toEqual([
      { type: "thinking", thinking: "Let me think.", signature: "" },
      { type: "text", text: "Yes." },
    ]);
    expect(out.stop_reason).toBe("max_tokens");
  });

  it("reads arguments that are no JSON object as an empty input, and a missing usage as zeros", () => {
    const out = encodeMessage(
      {
        choices: [
          {
            message: { content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "{oops" } }] },
            finish_reason: "tool_calls",
          },
        ],
      },
      info,
    );
    expect(out.content).toEqual([{ type: "tool_use", id: "c", name: "f", input: {} }]);
    expect(out.usage).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it("gives a shortened tool name back as the caller wrote it", () => {
    const long = `mcp__${"x".repeat(80)}`;
    const short = upstreamToolName(long);
    const out = encodeMessage(
      { choices: [{ message: { tool_calls: [{ id: "c", function: { name: short, arguments: "{}" } }] }, finish_reason: "tool_calls" }] },
      { ...info, request: { tools: [{ name: long, input_schema: {} }] } },
    );
    expect(out.content).toEqual([{ type: "tool_use", id: "c", name: long, input: {} }]);
  });

  it("maps finish reasons to stop reasons", () => {
    expect(["stop", "length", "tool_calls", "function_call", "content_filter", null].map(stopReason)).toEqual([
      "end_turn",
      "max_tokens",
      "tool_use",
      "tool_use",
      "refusal",
      "end_turn",
    ]);
  });

  it("splits cache reads and writes out of the prompt tokens", () => {
    // An upstream's Anthropic-style usage comes back as it was.
    expect(anthropicUsage({ input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 600, cache_creation_input_tokens: 300 })).toEqual(
      {
        input_tokens: 100,
        output_tokens: 7,
        cache_read_input_tokens: 600,
        cache_creation_input_tokens: 300,
      },
    );
    expect(
      anthropicUsage({
        prompt_tokens: 1000,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 600, cache_creation_tokens: 300 },
      }),
    ).toEqual({
      input_tokens: 100,
      output_tokens: 7,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
    });
  });
});

describe("Anthropic errors", () => {
  it("maps HTTP statuses to Anthropic's error types", () => {
    expect([400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 503, 504, 529].map((status) => errorTypeFor(status))).toEqual([
      "invalid_request_error",
      "authentication_error",
      "billing_error",
      "permission_error",
      "not_found_error",
      "request_too_large",
      "invalid_request_error",
      "rate_limit_error",
      "api_error",
      "api_error",
      "api_error",
      "timeout_error",
      "overloaded_error",
    ]);
    // A 503 is overloaded only when its error says so: a busy relay, an overloaded upstream.
    expect(errorTypeFor(503, "server_busy", "body_budget_full")).toBe("overloaded_error");
    expect(errorTypeFor(503, "server_error", null, "The engine is currently overloaded, please try again later.")).toBe("overloaded_error");
    expect(errorTypeFor(503, "upstream_error", "bad_response_status_code", "bad response status code 503")).toBe("api_error");
  });

  it("shapes an error body as Anthropic does", () => {
    expect(anthropicProtocol.errorBody(401, "无效的令牌 (request id: x)", "new_api_error", "invalid_api_key")).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "无效的令牌 (request id: x)" },
    });
  });

  it("reads a failed stream's error type from OpenAI's error object", () => {
    expect(streamErrorType("upstream_error", "stream_timeout")).toBe("timeout_error");
    expect(streamErrorType("requests", "rate_limit_exceeded")).toBe("rate_limit_error");
    expect(streamErrorType("server_error", null)).toBe("api_error");
  });

  it("claims POST /v1/messages as a call and count_tokens as its own", () => {
    const q = new URLSearchParams();
    expect(anthropicProtocol.match("POST", "/v1/messages", q)).toEqual({ call: {} });
    expect(anthropicProtocol.match("POST", "/v1/messages/count_tokens", q)).toHaveProperty("serve");
    expect(anthropicProtocol.match("GET", "/v1/messages", q)).toBeNull();
    expect(anthropicProtocol.match("POST", "/v1/messages/batches", q)).toBeNull();
  });
});
