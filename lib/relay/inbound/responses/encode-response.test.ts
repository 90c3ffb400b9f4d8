// A canonical whole answer (OpenAI chat.completion) as a Response object.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { chatToResponse } from "./encode-response";
import { responsesProtocol } from "./index";

const info = (request: Record<string, unknown> = {}): InboundInfo => ({
  requestId: "20261124050000abcd123456",
  model: "gpt-4o-mini",
  created: 1_763_960_000,
  request: { model: "gpt-4o-mini", input: "hi", ...request },
});

const answer = (message: Record<string, unknown>, finish = "stop", usage?: Record<string, unknown>) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage,
});

describe("chatToResponse", () => {
  it("answers a recorded chat completion as a completed Response, echoing the request's defaults", () => {
    const recorded = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../openai/__fixtures__/openai-chat.json"), "utf8"));
    const res = chatToResponse(recorded, info());
    expect(res).toEqual({
      id: "resp_20261124050000abcd123456",
      object: "response",
      created_at: 1_763_960_000,
      status: "completed",
      background: false,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: "gpt-4o-mini",
      output: [
        {
          type: "message",
          id: "msg_20261124050000abcd123456",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: recorded.choices[0].message.content, annotations: [], logprobs: [] }],
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: false,
      temperature: 1,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: 1,
      truncation: "disabled",
      usage: {
        input_tokens: recorded.usage.prompt_tokens,
        input_tokens_details: { cached_tokens: recorded.usage.prompt_tokens_details?.cached_tokens ?? 0 },
        output_tokens: recorded.usage.completion_tokens,
        output_tokens_details: { reasoning_tokens: recorded.usage.completion_tokens_details?.reasoning_tokens ?? 0 },
        total_tokens: recorded.usage.prompt_tokens + recorded.usage.completion_tokens,
      },
      user: null,
      metadata: {},
    });
  });

  it("echoes what the caller set", () => {
    const tools = [{ type: "function", name: "w", parameters: {} }];
    const res = chatToResponse(
      answer({ content: "ok" }),
      info({
        instructions: "Be brief.",
        max_output_tokens: 50,
        temperature: 0.2,
        top_p: 0.9,
        tools,
        tool_choice: "required",
        parallel_tool_calls: false,
        text: { format: { type: "json_object" } },
        reasoning: { effort: "low", summary: "auto" },
        metadata: { k: "v" },
        user: "u-1",
        store: true,
      }),
    );
    expect(res).toMatchObject({
      instructions: "Be brief.",
      max_output_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      tools,
      tool_choice: "required",
      parallel_tool_calls: false,
      text: { format: { type: "json_object" } },
      reasoning: { effort: "low", summary: null },
      metadata: { k: "v" },
      user: "u-1",
      // nothing is stored, whatever the caller asked
      store: false,
    });
  });

  it("answers tool calls as function_call items after the text", () => {
    const res = chatToResponse(
      answer(
        {
          content: "Checking.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "w", arguments: '{"city":"Rome"}' } },
          ],
        },
        "tool_calls",
      ),
      info(),
    );
    expect(res.status).toBe("completed");
    expect(res.output).toEqual([
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "Checking." })] }),
      {
        type: "function_call",
        id: "fc_20261124050000abcd123456_0",
        call_id: "call_a",
        name: "w",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
      expect.objectContaining({ type: "function_call", id: "fc_20261124050000abcd123456_1", call_id: "call_b" }),
    ]);
  });

  it("answers calls of Codex's custom, local shell and namespaced tools as their own items", () => {
    const tools = [
      { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } },
      { type: "local_shell" },
      { type: "namespace", name: "multi_agent_v1", description: "agents", tools: [{ type: "function", name: "spawn_agent" }] },
    ];
    const call = (id: string, name: string, args: unknown) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    const res = chatToResponse(
      answer(
        {
          content: null,
          tool_calls: [
            call("call_1", "apply_patch", { input: "*** Begin Patch\n*** End Patch\n" }),
            call("call_2", "local_shell", { command: ["ls"], timeout_ms: 5000 }),
            call("call_3", "multi_agent_v1__spawn_agent", { task: "t" }),
          ],
        },
        "tool_calls",
      ),
      info({ tools }),
    );
    expect(res.output).toEqual([
      {
        type: "custom_tool_call",
        id: "ctc_20261124050000abcd123456_0",
        call_id: "call_1",
        name: "apply_patch",
        input: "*** Begin Patch\n*** End Patch\n",
        status: "completed",
      },
      {
        type: "local_shell_call",
        id: "lsh_20261124050000abcd123456_1",
        call_id: "call_2",
        action: { type: "exec", command: ["ls"], env: {}, timeout_ms: 5000 },
        status: "completed",
      },
      {
        type: "function_call",
        id: "fc_20261124050000abcd123456_2",
        call_id: "call_3",
        namespace: "multi_agent_v1",
        name: "spawn_agent",
        arguments: '{"task":"t"}',
        status: "completed",
      },
    ]);
  });

  it("marks an answer cut by the token limit incomplete, and reads cached and reasoning tokens", () => {
    const res = chatToResponse(
      answer({ content: "Once upon" }, "length", {
        prompt_tokens: 100,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 12 },
      }),
      info(),
    );
    expect(res).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ type: "message", status: "incomplete" }],
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 64 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 120,
      },
    });
    expect(chatToResponse(answer({ content: "" }, "content_filter"), info())).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "content_filter" },
      output: [],
    });
  });

  it("answers a reasoner's reasoning as a reasoning item before the message", () => {
    expect(chatToResponse(answer({ content: "4", reasoning_content: "2 + 2 is 4." }), info()).output).toEqual([
      {
        type: "reasoning",
        id: "rs_20261124050000abcd123456_0",
        summary: [],
        content: [{ type: "reasoning_text", text: "2 + 2 is 4." }],
        status: "completed",
      },
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "4" })] }),
    ]);
  });

  it("answers a refusal as a refusal part", () => {
    expect(chatToResponse(answer({ content: null, refusal: "I can't help with that." }), info()).output).toEqual([
      expect.objectContaining({ content: [{ type: "refusal", refusal: "I can't help with that." }] }),
    ]);
  });
});

describe("the protocol", () => {
  it("claims POST /v1/responses only", () => {
    const q = new URLSearchParams();
    expect(responsesProtocol.match("POST", "/v1/responses", q)).toEqual({ call: {} });
    expect(responsesProtocol.match("GET", "/v1/responses", q)).toBeNull();
    expect(responsesProtocol.match("POST", "/v1/responses/resp_1/cancel", q)).toBeNull();
  });

  it("answers errors in OpenAI's shape", () => {
    expect(responsesProtocol.errorBody(401, "无效的令牌", "new_api_error", "invalid_api_key")).toEqual({
      error: { message: "无效的令牌", type: "new_api_error", param: null, code: "invalid_api_key" },
    });
  });
});
