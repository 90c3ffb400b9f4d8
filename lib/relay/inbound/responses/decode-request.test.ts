// Decoding a Responses request into the canonical chat completions body.
import { CollectedNotes } from "@/lib/relay/inbound/notes";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RelayError } from "@/lib/relay/errors";
import { responsesToChat } from "./decode-request";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8"));

/** The 400 a body gets: its param and message. */
function refusal(body: Record<string, unknown>): { status: number; param: string | null; message: string; type: string } {
  try {
    responsesToChat(body);
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    return { status: error.status, param: error.param, message: error.message, type: error.type };
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

describe("responsesToChat", () => {
  it("takes a string input, with the instructions as the first system message", () => {
    expect(responsesToChat({ model: "m", instructions: "Be brief.", input: "hi" })).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("decodes a Codex CLI turn: messages, the call and its output, reasoning dropped, flat tools nested", () => {
    const chat = responsesToChat(fixture("codex-request.json"));
    expect(chat.messages).toEqual([
      { role: "system", content: "You are Codex, a coding agent running in the user's terminal." },
      { role: "user", content: expect.stringContaining("<environment_context>") },
      { role: "user", content: "list the files here" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_Xk2mP9qR4sT7vW1yZ3bC5dF8",
            type: "function",
            function: { name: "shell", arguments: '{"command":["bash","-lc","ls"],"workdir":"/home/dev/app"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_Xk2mP9qR4sT7vW1yZ3bC5dF8", content: expect.stringContaining("README.md") },
      { role: "assistant", content: "There are three entries: README.md, package.json and src/." },
      { role: "user", content: "thanks" },
    ]);
    expect(chat.tools).toEqual([
      {
        type: "function",
        function: {
          name: "shell",
          description: "Runs a shell command and returns its output.",
          parameters: expect.objectContaining({ required: ["command"] }),
          strict: false,
        },
      },
      { type: "function", function: expect.objectContaining({ name: "update_plan" }) },
    ]);
    expect(chat).toMatchObject({
      model: "gpt-4.1",
      stream: true,
      tool_choice: "auto",
      parallel_tool_calls: false,
      reasoning_effort: "medium",
      prompt_cache_key: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    });
    // store, include and reasoning.summary have no chat counterpart.
    for (const key of ["store", "include", "reasoning", "instructions", "input"]) expect(chat).not.toHaveProperty(key);
  });

  it("maps roles and content parts", () => {
    const chat = responsesToChat({
      model: "m",
      input: [
        {
          role: "developer",
          content: [
            { type: "input_text", text: "rule one" },
            { type: "input_text", text: "rule two" },
          ],
        },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "what is this?" },
            { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "output_text", text: "A cat", annotations: [] },
            { type: "output_text", text: "." },
          ],
        },
        { role: "user", content: [{ type: "input_text", text: "sure?" }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: "system", content: "rule one\nrule two" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
        ],
      },
      { role: "assistant", content: "A cat." },
      { role: "user", content: "sure?" },
    ]);
  });

  it("puts parallel calls, and calls after the turn's text, in one assistant message", () => {
    const chat = responsesToChat({
      model: "m",
      input: [
        { role: "user", content: "weather in Paris and Rome?" },
        { role: "assistant", content: "Checking both." },
        { type: "function_call", call_id: "c1", name: "w", arguments: '{"city":"Paris"}', id: "fc_1", status: "completed" },
        { type: "function_call", call_id: "c2", name: "w", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "c1", output: "21" },
        {
          type: "function_call_output",
          call_id: "c2",
          output: [
            { type: "input_text", text: "2" },
            { type: "input_text", text: "5" },
          ],
        },
      ],
    });
    expect(chat.messages).toEqual([
      { role: "user", content: "weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "Checking both.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } },
          { id: "c2", type: "function", function: { name: "w", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "21" },
      { role: "tool", tool_call_id: "c2", content: "25" },
    ]);
  });

  it("maps the settings chat knows and drops the rest", () => {
    const chat = responsesToChat({
      model: "m",
      input: "hi",
      max_output_tokens: 100,
      temperature: 0,
      top_p: 0.5,
      user: "u-1",
      metadata: { a: "b" },
      store: true,
      truncation: "auto",
      tools: [{ type: "function", name: "w" }],
      tool_choice: { type: "function", name: "w" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true, description: "d" } },
    });
    expect(chat).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 100,
      temperature: 0,
      top_p: 0.5,
      user: "u-1",
      tools: [{ type: "function", function: { name: "w" } }],
      tool_choice: { type: "function", function: { name: "w" } },
      response_format: {
        type: "json_schema",
        json_schema: { name: "answer", schema: { type: "object" }, strict: true, description: "d" },
      },
    });
    expect(responsesToChat({ model: "m", input: "hi", text: { format: { type: "json_object" } } }).response_format).toEqual({
      type: "json_object",
    });
    expect(responsesToChat({ model: "m", input: "hi", text: { format: { type: "text" }, verbosity: "low" } })).not.toHaveProperty(
      "response_format",
    );
    const tools = [{ type: "function", name: "w" }];
    for (const choice of ["none", "auto", "required"]) {
      expect(responsesToChat({ model: "m", input: "hi", tools, tool_choice: choice }).tool_choice).toBe(choice);
    }
    // Without tools, chat refuses tool_choice and parallel_tool_calls: they are left out.
    const bare = responsesToChat({ model: "m", input: "hi", tool_choice: "auto", parallel_tool_calls: true });
    expect(bare).not.toHaveProperty("tool_choice");
    expect(bare).not.toHaveProperty("parallel_tool_calls");
  });

  it("decodes a Codex CLI 0.16x turn with every tool kind: flattened, described, replayed, built-ins dropped", () => {
    const notes = new CollectedNotes();
    const chat = responsesToChat(fixture("codex-tools-request.json"), notes);
    expect(notes.refusal).toBeNull();
    expect(notes.dropped).toEqual(["web_search"]);
    const tools = chat.tools as { function: Record<string, any> }[];
    expect(tools.map((t) => t.function.name)).toEqual([
      "shell",
      "local_shell",
      "apply_patch",
      "multi_agent_v1__spawn_agent",
      "multi_agent_v1__wait",
      "update_plan",
    ]);
    expect(tools[1]!.function.parameters.properties.command).toEqual({
      type: "array",
      items: { type: "string" },
      description: expect.any(String),
    });
    // The freeform tool takes its text in one string, the grammar told in the description.
    expect(tools[2]!.function.parameters).toMatchObject({ properties: { input: { type: "string" } }, required: ["input"] });
    expect(tools[2]!.function.description).toMatch(/FREEFORM[\s\S]*lark grammar:\nstart: begin_patch/);
    expect(tools[3]!.function).toMatchObject({ description: "Starts a sub-agent on a task.", parameters: { required: ["task"] } });
    const calls = (chat.messages as Record<string, any>[]).filter((m) => m.tool_calls).flatMap((m) => m.tool_calls);
    expect(calls).toEqual([
      {
        id: "call_shell_1",
        type: "function",
        function: {
          name: "local_shell",
          arguments: JSON.stringify({
            command: ["bash", "-lc", "cat README.md"],
            working_directory: "/home/dev/app",
            timeout_ms: 10000,
            env: {},
          }),
        },
      },
      {
        id: "call_patch_1",
        type: "function",
        function: { name: "apply_patch", arguments: JSON.stringify({ input: fixture("codex-tools-request.json").input[7].input }) },
      },
      { id: "call_spawn_1", type: "function", function: { name: "multi_agent_v1__spawn_agent", arguments: '{"task":"review README.md"}' } },
    ]);
    const outputs = (chat.messages as Record<string, any>[]).filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(outputs).toEqual(["call_shell_1", "call_patch_1", "call_spawn_1"]);
    // The developer message is system text; reasoning and the search call are gone from the history.
    expect((chat.messages as Record<string, any>[]).map((m) => m.role)).toEqual([
      "system",
      "system",
      "user",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(chat).toMatchObject({ tool_choice: "auto", parallel_tool_calls: false, reasoning_effort: "medium", stream: true });
    expect(chat).toMatchObject({ prompt_cache_key: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" });
    for (const ignored of ["include", "store", "text", "reasoning", "response_format"]) expect(chat).not.toHaveProperty(ignored);
  });

  it("maps tool choices to the flattened names, allowed_tools to a cut list, a built-in's to auto", () => {
    const tools = fixture("codex-tools-request.json").tools;
    const choose = (tool_choice: unknown) => {
      const notes = new CollectedNotes();
      const chat = responsesToChat({ model: "m", input: "hi", tools, tool_choice }, notes);
      return { choice: chat.tool_choice, names: (chat.tools as any[]).map((t) => t.function.name), dropped: notes.dropped };
    };
    expect(choose({ type: "custom", name: "apply_patch" }).choice).toEqual({ type: "function", function: { name: "apply_patch" } });
    expect(choose({ type: "function", namespace: "multi_agent_v1", name: "wait" }).choice).toEqual({
      type: "function",
      function: { name: "multi_agent_v1__wait" },
    });
    expect(choose({ type: "web_search_preview" })).toMatchObject({ choice: "auto", dropped: ["web_search"] });
    expect(
      choose({
        type: "allowed_tools",
        mode: "required",
        tools: [{ type: "function", name: "shell" }, { type: "local_shell" }, { type: "web_search" }],
      }),
    ).toMatchObject({ choice: "required", names: ["shell", "local_shell"] });
  });

  it("refuses what needs stored state, file ids and content no target reads, with a 400 naming the field", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ previous_response_id: "resp_1" }, "previous_response_id", /不保存任何响应/],
      [{ conversation: "conv_1" }, "conversation", /不保存对话/],
      [{ background: true }, "background", /background/],
      [{ prompt: { id: "pmpt_1" } }, "prompt", /prompt 模板/],
      [{ input: [{ type: "item_reference", id: "msg_1" }] }, "input[0]", /item_reference/],
      [{ input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] }, "input[0].content[0].file_id", /file_id/],
      [{ input: [{ role: "user", content: [{ type: "input_file", file_id: "file-1" }] }] }, "input[0].content[0]", /input_file/],
      [{ text: { format: { type: "grammar" } } }, "text.format.type", /json_schema/],
    ];
    for (const [extra, param, message] of cases) {
      const e = refusal({ model: "m", input: "hi", ...extra });
      expect(e, JSON.stringify(extra)).toMatchObject({ status: 400, param, type: "invalid_request_error" });
      expect(e.message).toMatch(message);
    }
  });

  it("refuses malformed bodies with a 400 naming the field", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ input: "hi" }, "model"],
      [{ model: "m" }, "input"],
      [{ model: "m", input: [] }, "input"],
      [{ model: "m", instructions: "only this", input: [] }, "input"],
      [{ model: "m", input: 5 }, "input"],
      [{ model: "m", input: ["hi"] }, "input[0]"],
      [{ model: "m", input: [{ role: "tool", content: "x" }] }, "input[0].role"],
      [
        { model: "m", input: [{ role: "assistant", content: [{ type: "input_image", image_url: "https://x/y.png" }] }] },
        "input[0].content",
      ],
      [{ model: "m", input: [{ type: "function_call", name: "w", arguments: "{}" }] }, "input[0].call_id"],
      [{ model: "m", input: [{ type: "function_call_output", call_id: "c", output: 5 }] }, "input[0].output"],
      [{ model: "m", input: "hi", max_output_tokens: 0 }, "max_output_tokens"],
      [{ model: "m", input: "hi", temperature: "hot" }, "temperature"],
      [{ model: "m", input: "hi", stream: "yes" }, "stream"],
      [{ model: "m", input: "hi", tools: [{ type: "function" }] }, "tools[0].name"],
      [{ model: "m", input: [{ type: "additional_tools", role: "developer", tools: {} }, "hi"] }, "input[0].tools"],
      [
        {
          model: "m",
          input: [
            { role: "user", content: "hi" },
            { type: "additional_tools", tools: [{ type: "custom" }] },
          ],
        },
        "input[1].tools[0].name",
      ],
      [{ model: "m", input: "hi", text: { format: { type: "json_schema", name: "x" } } }, "text.format.schema"],
      [{ model: "m", input: "hi", reasoning: { effort: 3 } }, "reasoning.effort"],
    ];
    for (const [body, param] of cases) expect(refusal(body), JSON.stringify(body)).toMatchObject({ status: 400, param });
  });

  it("hands what cannot be converted to `refuse` and leaves it out, still throwing for what can never be valid", () => {
    const refused: RelayError[] = [];
    const dropped: string[] = [];
    const chat = responsesToChat(
      {
        model: "m",
        previous_response_id: "resp_1",
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: "hi" },
              { type: "input_file", file_id: "file-1" },
            ],
          },
          { type: "web_search_call", id: "ws_1", status: "completed" },
          { type: "item_reference", id: "msg_1" },
        ],
        tools: [{ type: "web_search" }, { type: "function", name: "w" }],
        tool_choice: { type: "web_search" },
      },
      { refuse: (error) => refused.push(error), drop: (feature) => dropped.push(feature) },
    );
    expect(refused.map((e) => e.param)).toEqual(["previous_response_id", "input[0].content[1]", "input[2]"]);
    // The built-in tool, its call in the history and the choice of it only lose the search.
    expect(dropped).toEqual(["web_search", "web_search", "web_search"]);
    expect(refused.every((e) => e.status === 400 && e.code === "unsupported_parameter")).toBe(true);
    // The canonical body keeps what converts: for pricing, limits and counting.
    expect(chat).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "w" } }],
      tool_choice: "auto",
    });
    // A prompt template may stand for the input; nothing to convert is then no error.
    expect(responsesToChat({ model: "m", prompt: { id: "pmpt_1" } }, new CollectedNotes())).toEqual({ model: "m", messages: [] });
    // Malformed is malformed whatever the channel.
    expect(() => responsesToChat({ model: "m", input: "hi", max_output_tokens: 0 }, new CollectedNotes())).toThrow(/max_output_tokens/);
    expect(() => responsesToChat({ model: "m", input: "hi", tools: [{ type: 5 }] }, new CollectedNotes())).toThrow(/tools\[0\]\.type/);
  });
});
