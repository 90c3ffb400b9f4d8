// Codex 0.171's real requests (tests/fixtures/agents/codex*, recorded by `npm run record:agents`)
// through the converted route's pieces: the decoder, the answer's encoders, and the Claude and
// Gemini request converters. Two shapes: its default model's (tools only in an `additional_tools`
// input item, a freeform `exec` in the default namespace `functions`) and gpt-5.4's (`tools` with
// a `multi_agent_v1` namespace and `web_search`).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InboundCall } from "@/lib/relay/inbound";
import { CollectedNotes } from "@/lib/relay/inbound/notes";
import type { InboundInfo } from "@/lib/relay/inbound/types";
import type { Obj } from "@/lib/obj";
import { anthropicMessages } from "@/lib/relay/providers/anthropic/convert-request";
import { toGenerateContent } from "@/lib/relay/providers/gemini/convert-request";
import { responsesToChat } from "./decode-request";
import { chatToResponse } from "./encode-response";
import { responsesProtocol } from "./index";

type Recorded = { requests: { body: Obj }[] };
const recorded = (id: "codex" | "codex-gpt-5.4", scenario: "plain" | "tool"): Recorded =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, `../../../../tests/fixtures/agents/${id}/${scenario}.json`), "utf8"));

/** The last model call of a recording: for the tool scenario, the one carrying the tool's output. */
const lastBody = (id: "codex" | "codex-gpt-5.4", scenario: "plain" | "tool") => recorded(id, scenario).requests.at(-1)!.body;

function decode(body: Obj) {
  const notes = new CollectedNotes();
  const chat = responsesToChat(body, notes);
  return { chat, notes };
}

const toolNames = (chat: Obj) => (chat.tools as { function: { name: string } }[]).map((t) => t.function.name);
const toolNamed = (chat: Obj, name: string) =>
  (chat.tools as { function: Obj & { name: string } }[]).find((t) => t.function.name === name)!.function;

/** Every `encrypted` key anywhere in a value. */
const encryptedKeys = (value: unknown): number => (JSON.stringify(value).match(/"encrypted":/g) ?? []).length;

const DEFAULT_TOOLS = [
  "exec",
  "wait",
  "request_user_input",
  "request_user_input_async",
  "send_message_to_user_async",
  "clock__sleep",
  "collaboration__followup_task",
  "collaboration__interrupt_agent",
  "collaboration__list_agents",
  "collaboration__send_message",
  "collaboration__spawn_agent",
  "collaboration__wait_agent",
];

describe("Codex 0.171, default model: tools only in an additional_tools item", () => {
  it("offers every tool of the item, the default namespace's under bare names, and refuses or drops nothing", () => {
    const body = lastBody("codex", "plain");
    expect(body.tools).toBeUndefined();
    const { chat, notes } = decode(body);
    expect(notes.refusal).toBeNull();
    expect(notes.dropped).toEqual([]);
    expect(toolNames(chat)).toEqual(DEFAULT_TOOLS);
    // The freeform exec: one string `input`, its Lark grammar told in words.
    const exec = toolNamed(chat, "exec");
    expect(exec.parameters).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"] });
    expect(exec.description).toContain("Run JavaScript code to orchestrate/compose tool calls");
    expect(exec.description).toContain("lark grammar");
    expect(exec.description).toContain("pragma_source");
    // Codex's own fields with no chat equivalent change nothing; the ones chat has go on.
    expect(chat).toMatchObject({ model: "gpt-6.2-sol", stream: true, tool_choice: "auto", parallel_tool_calls: false });
    expect(chat.reasoning_effort).toBe("low");
    expect(chat.prompt_cache_key).toBe(body.prompt_cache_key);
    for (const key of ["client_metadata", "text", "reasoning", "include", "store"]) expect(chat).not.toHaveProperty(key);
    // Four developer messages, then the environment and the prompt.
    const messages = chat.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "system", "system", "system", "user", "user"]);
    expect(messages.at(-1)!.content).toBe("Say hello.");
  });

  it("replays the tool turn: exec's custom_tool_call under its bare name, its output as the tool message", () => {
    const body = lastBody("codex", "tool");
    const call = (body.input as Obj[]).find((i) => i.type === "custom_tool_call")!;
    expect(call).toMatchObject({ name: "exec" });
    expect(call.namespace).toBeUndefined();
    const { chat, notes } = decode(body);
    expect(notes.refusal).toBeNull();
    expect(toolNames(chat)).toEqual(DEFAULT_TOOLS);
    const messages = chat.messages as Obj[];
    expect(messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: call.call_id, type: "function", function: { name: "exec", arguments: JSON.stringify({ input: call.input }) } }],
      },
      { role: "tool", tool_call_id: call.call_id, content: "Script completed\nWall time 0.2 seconds\nOutput:\nhello from the recorder\n" },
    ]);
  });

  it("keeps Codex's `encrypted` annotations for Claude's JSON Schema and leaves them out of Gemini's Schema", () => {
    const { chat } = decode(lastBody("codex", "tool"));
    const spawn = toolNamed(chat, "collaboration__spawn_agent");
    expect(spawn.parameters).toMatchObject({ properties: { message: { type: "string", encrypted: true } } });

    const claude = anthropicMessages(chat, "claude-sonnet-4-5");
    const claudeTools = claude.tools as { name: string; input_schema: Obj }[];
    expect(claudeTools.map((t) => t.name)).toEqual(DEFAULT_TOOLS);
    // An unknown keyword is an annotation in JSON Schema 2020-12: Claude's input_schema takes it.
    expect(claudeTools.find((t) => t.name === "collaboration__spawn_agent")!.input_schema).toEqual(spawn.parameters);
    const claudeCall = (claude.messages as { content: Obj[] }[]).flatMap((m) => m.content).find((b) => b.type === "tool_use");
    expect(claudeCall).toMatchObject({ name: "exec", input: { input: expect.stringContaining("tools.exec_command") } });

    const gemini = toGenerateContent(chat, new Map(), "gemini-2.5-pro");
    const declarations = (gemini.tools as { functionDeclarations: { name: string; parameters?: Obj }[] }[]).flatMap(
      (t) => t.functionDeclarations,
    );
    expect(declarations.map((d) => d.name)).toEqual(DEFAULT_TOOLS);
    expect(encryptedKeys(declarations)).toBe(0);
    expect(declarations.find((d) => d.name === "collaboration__spawn_agent")!.parameters).toMatchObject({
      type: "object",
      properties: { message: { type: "string", description: "Initial plain-text task for the new agent." } },
    });
    const geminiCall = (gemini.contents as { parts: Obj[] }[]).flatMap((c) => c.parts).find((p) => p.functionCall);
    expect(geminiCall).toMatchObject({ functionCall: { name: "exec" } });
  });

  const info = (request: Obj): InboundInfo => ({
    requestId: "20261126100000codex0171",
    model: "gpt-6.2-sol",
    created: 1_795_688_841,
    request,
  });

  it("answers calls with the caller's own items: exec as a custom_tool_call, a namespace's tool with its namespace", () => {
    const answer = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "claude-sonnet-4-5",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "toolu_1", type: "function", function: { name: "exec", arguments: '{"input":"text(1)"}' } },
              { id: "toolu_2", type: "function", function: { name: "clock__sleep", arguments: '{"duration_ms":5}' } },
            ],
          },
        },
      ],
    };
    const res = chatToResponse(answer, info(lastBody("codex", "plain")));
    expect(res.output).toEqual([
      { type: "custom_tool_call", id: expect.any(String), status: "completed", call_id: "toolu_1", name: "exec", input: "text(1)" },
      {
        type: "function_call",
        id: expect.any(String),
        status: "completed",
        call_id: "toolu_2",
        name: "sleep",
        namespace: "clock",
        arguments: '{"duration_ms":5}',
      },
    ]);
  });

  it("streams exec's call as a custom_tool_call named exec", () => {
    const chunk = (delta: Obj, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const relayed = [
      chunk({ role: "assistant", tool_calls: [{ index: 0, id: "toolu_1", type: "function", function: { name: "exec", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"input":"text(' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1)"}' } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ].join("");
    const writer = new InboundCall(responsesProtocol, info({ ...lastBody("codex", "plain"), stream: true })).streamWriter();
    const out = Buffer.from(writer.write(Buffer.from(relayed)) ?? new Uint8Array()).toString();
    const done = out
      .split("\n\n")
      .filter((e) => e.startsWith("event: response.output_item.done"))
      .map((e) => JSON.parse(e.split("\n")[1]!.slice("data: ".length)).item);
    expect(done).toEqual([expect.objectContaining({ type: "custom_tool_call", name: "exec", call_id: "toolu_1", input: "text(1)" })]);
    expect(done[0].namespace).toBeUndefined();
  });
});

describe("Codex 0.171 with gpt-5.4: tools with a namespace and web_search", () => {
  it("flattens multi_agent_v1, drops and names web_search, and replays the exec_command call", () => {
    const body = lastBody("codex-gpt-5.4", "tool");
    const { chat, notes } = decode(body);
    expect(notes.refusal).toBeNull();
    expect(notes.dropped).toEqual(["web_search"]);
    expect(toolNames(chat)).toEqual([
      "exec_command",
      "write_stdin",
      "request_user_input",
      "view_image",
      "multi_agent_v1__close_agent",
      "multi_agent_v1__resume_agent",
      "multi_agent_v1__send_input",
      "multi_agent_v1__spawn_agent",
      "multi_agent_v1__wait_agent",
      "get_goal",
      "create_goal",
      "update_goal",
    ]);
    const call = (body.input as Obj[]).find((i) => i.type === "function_call")!;
    const messages = chat.messages as Obj[];
    expect(messages.at(-2)).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: call.call_id, type: "function", function: { name: "exec_command", arguments: call.arguments } }],
    });
    expect(messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: call.call_id,
      content: expect.stringContaining("hello from the recorder"),
    });
  });
});

describe("tool_search (Codex with gpt-5.5)", () => {
  it("drops the tool and its items, named once, and refuses nothing", () => {
    const { chat, notes } = decode({
      model: "gpt-5.5",
      tools: [
        { type: "tool_search" },
        { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
      ],
      input: [
        { role: "user", content: "patch it" },
        { type: "tool_search_call", id: "ts_1", call_id: "ts_1", status: "completed", arguments: {} },
        { type: "tool_search_output", id: "tso_1", call_id: "ts_1", status: "completed", tools: [] },
      ],
      reasoning: { effort: "medium", context: "all_turns" },
      text: { verbosity: "low" },
      client_metadata: { session_id: "s" },
    });
    expect(notes.refusal).toBeNull();
    expect(notes.dropped).toEqual(["tool_search"]);
    expect(toolNames(chat)).toEqual(["apply_patch"]);
    expect(chat.messages).toEqual([{ role: "user", content: "patch it" }]);
  });
});
