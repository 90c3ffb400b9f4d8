// Anthropic Messages requests → the canonical OpenAI chat body, from a recorded Claude Code request.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RelayError } from "@/lib/relay/errors";
import { CollectedNotes } from "../notes";
import { decodeMessagesRequest } from "./decode-request";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8"));
const decode = (body: Record<string, unknown>) => decodeMessagesRequest(body, { requireMaxTokens: true });
const base = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };

describe("decodeMessagesRequest", () => {
  it("decodes a Claude Code request: system, every block kind, tools and the sampling fields", () => {
    expect(decode(fixture("claude-code-request.json"))).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 32000,
      stream: true,
      temperature: 1,
      // thinking: {type: "enabled", budget_tokens: 31999}
      reasoning_effort: "high",
      user: "user_6f1c_account__session_93ab",
      messages: [
        { role: "system", content: "You are Claude Code, Anthropic's official CLI for Claude.\nWorking directory: /home/dev/app" },
        {
          role: "user",
          content: [
            { type: "text", text: "What does this screenshot and the spec say?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.com/diagram.png" } },
            { type: "file", file: { filename: "spec.pdf", file_data: "data:application/pdf;base64,JVBERi0xLjQ=" } },
            { type: "text", text: "rules\n\nRule 1: be kind." },
          ],
        },
        {
          // thinking and redacted_thinking are dropped from the history
          role: "assistant",
          content: "Let me read it.",
          tool_calls: [
            {
              id: "toolu_01A09q90qw90lq917835lq9",
              type: "function",
              function: { name: "Read", arguments: '{"file_path":"/home/dev/app/README.md"}' },
            },
            { id: "toolu_01B", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_01A09q90qw90lq917835lq9", content: "# App\nA demo." },
        { role: "tool", tool_call_id: "toolu_01B", content: "Error: ls: permission denied" },
        // a tool result's image, which a tool message cannot carry
        { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } }] },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "Read",
            description: "Reads a file from the local filesystem.",
            parameters: {
              type: "object",
              properties: { file_path: { type: "string", description: "The absolute path to the file to read" } },
              required: ["file_path"],
              additionalProperties: false,
              $schema: "http://json-schema.org/draft-07/schema#",
            },
          },
        },
        {
          type: "function",
          function: {
            name: "Bash",
            description: "Executes a bash command.",
            parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
          },
        },
      ],
      tool_choice: "auto",
    });
  });

  it("maps every tool_choice, and drops one without tools", () => {
    const tools = [{ name: "t", input_schema: { type: "object" } }];
    const choice = (tool_choice: unknown) => decode({ ...base, tools, tool_choice });
    expect(choice({ type: "auto" }).tool_choice).toBe("auto");
    expect(choice({ type: "any" }).tool_choice).toBe("required");
    expect(choice({ type: "none" }).tool_choice).toBe("none");
    expect(choice({ type: "tool", name: "t" }).tool_choice).toEqual({ type: "function", function: { name: "t" } });
    expect(choice({ type: "any", disable_parallel_tool_use: true }).parallel_tool_calls).toBe(false);
    expect(choice({ type: "auto" }).parallel_tool_calls).toBeUndefined();
    expect(decode({ ...base, tool_choice: { type: "any" } }).tool_choice).toBeUndefined();
  });

  it("keeps a plain system string and top_p, top_k, stop_sequences", () => {
    expect(decode({ ...base, system: "Be brief.", top_p: 0.9, top_k: 0, stop_sequences: ["\n\nHuman:"] })).toEqual({
      model: "m",
      max_tokens: 10,
      top_p: 0.9,
      top_k: 0,
      stop: ["\n\nHuman:"],
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("turns an assistant turn of only thinking into an empty message, and a text-only user turn into a string", () => {
    const out = decode({
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "s" }] },
      ],
    });
    expect(out.messages).toEqual([
      { role: "user", content: "a\nb" },
      { role: "assistant", content: "" },
    ]);
  });

  it("drops a server tool's call and result from an earlier assistant turn", () => {
    const out = decode({
      ...base,
      messages: [
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "mcp_tool_use", id: "mcptoolu_1", name: "search_issues", server_name: "github", input: {} },
            { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", content: [{ type: "text", text: "3 issues" }] },
            { type: "text", text: "Found it." },
          ],
        },
      ],
    });
    expect(out.messages).toEqual([{ role: "assistant", content: "Found it." }]);
  });

  it("reads a document given as content blocks as text", () => {
    const out = decode({
      ...base,
      messages: [
        { role: "user", content: [{ type: "document", source: { type: "content", content: [{ type: "text", text: "chunk one" }] } }] },
      ],
    });
    expect(out.messages).toEqual([{ role: "user", content: "chunk one" }]);
  });

  it("leaves out a metadata.user_id longer than OpenAI's 64 characters (Claude Code's)", () => {
    const claudeCode = `user_${"a".repeat(64)}_account_0f6e1c9a-5d2b-4e8f-9a7c-3b1d2e4f5a6b_session_7c2d9e4f-1a3b-4c5d-8e6f-9a0b1c2d3e4f`;
    expect(decode({ ...base, metadata: { user_id: claudeCode } }).user).toBeUndefined();
    expect(decode({ ...base, metadata: { user_id: "u-1" } }).user).toBe("u-1");
  });

  it("shortens tool names over 64 characters, the same way in tools, tool_choice and the history", () => {
    const long = `mcp__${"playwright_browser_".repeat(4)}navigate`;
    const out = decode({
      ...base,
      tools: [{ name: long, input_schema: { type: "object" } }],
      tool_choice: { type: "tool", name: long },
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: long, input: {} }] },
      ],
    });
    const short = (out.tools as { function: { name: string } }[])[0]!.function.name;
    expect(short).toHaveLength(64);
    expect(short.startsWith("mcp__playwright_browser_")).toBe(true);
    expect(out.tool_choice).toEqual({ type: "function", function: { name: short } });
    expect((out.messages as { tool_calls?: { function: { name: string } }[] }[])[1]!.tool_calls![0]!.function.name).toBe(short);
    // A name that fits is left alone.
    expect(decode({ ...base, tools: [{ name: "Read", input_schema: {} }] }).tools).toEqual([
      { type: "function", function: { name: "Read", parameters: {} } },
    ]);
  });

  it("does not require max_tokens for a token count", () => {
    const { max_tokens: _, ...noMax } = base;
    expect(decodeMessagesRequest(noMax, { requireMaxTokens: false })).toEqual({ model: "m", messages: [{ role: "user", content: "hi" }] });
  });

  it("keeps a mid-conversation system message where it stands, its text blocks joined", () => {
    const out = decode({
      ...base,
      system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "text", text: "Hello." }] },
        {
          role: "system",
          content: [
            { type: "text", text: "The user switched to plan mode." },
            { type: "text", text: "Do not edit files.", cache_control: { type: "ephemeral" } },
          ],
        },
        { role: "user", content: "go on" },
      ],
    });
    expect(out.messages).toEqual([
      { role: "system", content: "You are Claude Code." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello." },
      { role: "system", content: "The user switched to plan mode.\nDo not edit files." },
      { role: "user", content: "go on" },
    ]);
  });

  it("refuses an unknown role through the notes and goes on without that message", () => {
    const notes = new CollectedNotes();
    const out = decodeMessagesRequest(
      {
        ...base,
        messages: [
          { role: "user", content: "hi" },
          { role: "critic", content: "no" },
        ],
      },
      { requireMaxTokens: true },
      notes,
    );
    expect(out.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(notes.refusal?.message).toMatch(/messages\.1\.role/);
    expect(notes.refusal?.status).toBe(400);
  });

  it("refuses a document by url through the notes, keeping the rest of the turn", () => {
    const notes = new CollectedNotes();
    const out = decodeMessagesRequest(
      {
        ...base,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "summarise" },
              { type: "document", source: { type: "url", url: "https://x/a.pdf" } },
            ],
          },
        ],
      },
      { requireMaxTokens: true },
      notes,
    );
    expect(out.messages).toEqual([{ role: "user", content: "summarise" }]);
    expect(notes.refusal?.message).toMatch(/messages\.0\.content\.1\.source: a document by url/);
  });

  it.each([
    [{ thinking: { type: "adaptive" } }, "medium"],
    [{ thinking: { type: "adaptive" }, output_config: { effort: "low" } }, "low"],
    [{ thinking: { type: "adaptive" }, output_config: { effort: "max" } }, "high"],
    [{ thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } }, "high"],
    [{ output_config: { effort: "medium" } }, "medium"],
    [{ thinking: { type: "enabled", budget_tokens: 1024 } }, "low"],
    [{ thinking: { type: "enabled", budget_tokens: 4096 } }, "medium"],
    [{ thinking: { type: "enabled", budget_tokens: 16383 } }, "medium"],
    [{ thinking: { type: "enabled", budget_tokens: 16384 } }, "high"],
    [{ thinking: { type: "enabled", budget_tokens: 2000 }, output_config: { effort: "high" } }, "high"],
    [{ thinking: { type: "disabled" }, output_config: { effort: "high" } }, undefined],
    [{}, undefined],
  ])("maps %j to reasoning_effort %s", (fields, effort) => {
    expect(decode({ ...base, ...fields }).reasoning_effort).toBe(effort);
  });

  it("drops context_management, defer_loading, an unknown thinking type and server tools by name, keeping the rest", () => {
    const notes = new CollectedNotes();
    const out = decodeMessagesRequest(
      {
        ...base,
        thinking: { type: "telepathic" },
        context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
        tools: [
          { name: "Read", input_schema: { type: "object" }, defer_loading: true, cache_control: { type: "ephemeral" } },
          { type: "web_search_20250305", name: "web_search", max_uses: 5 },
          { type: "web_fetch_20250910", name: "web_fetch" },
          { type: "code_execution_20250825", name: "code_execution" },
          { type: "mcp_toolset", name: "github", mcp_server_name: "github" },
        ],
        tool_choice: { type: "tool", name: "web_search" },
      },
      { requireMaxTokens: true },
      notes,
    );
    expect(out.tools).toEqual([{ type: "function", function: { name: "Read", parameters: { type: "object" } } }]);
    expect(out.tool_choice).toBe("auto");
    expect(out.reasoning_effort).toBeUndefined();
    expect(out.context_management).toBeUndefined();
    expect(notes.dropped).toEqual([
      "thinking",
      "context_management",
      "defer_loading",
      "web_search",
      "web_fetch",
      "code_execution",
      "mcp_toolset",
    ]);
    expect(notes.refusal).toBeNull();
  });

  it("leaves tool_choice out when every tool was a server tool", () => {
    const notes = new CollectedNotes();
    const out = decodeMessagesRequest(
      { ...base, tools: [{ type: "web_search_20250305", name: "web_search" }], tool_choice: { type: "any" } },
      { requireMaxTokens: true },
      notes,
    );
    expect(out.tools).toBeUndefined();
    expect(out.tool_choice).toBeUndefined();
    expect(notes.dropped).toEqual(["web_search"]);
  });

  it("turns Anthropic's client tools (bash, text editor, computer, memory) into function tools with their schema", () => {
    const notes = new CollectedNotes();
    const out = decodeMessagesRequest(
      {
        ...base,
        tools: [
          { type: "bash_20250124", name: "bash" },
          { type: "text_editor_20250728", name: "str_replace_based_edit_tool", max_characters: 10000 },
          { type: "text_editor_20250124", name: "str_replace_editor" },
          { type: "computer_20250124", name: "computer", display_width_px: 1024, display_height_px: 768 },
          { type: "memory_20250818", name: "memory" },
        ],
        tool_choice: { type: "tool", name: "bash" },
      },
      { requireMaxTokens: true },
      notes,
    );
    const fns = (out.tools as { type: string; function: { name: string; description: string; parameters: Record<string, any> } }[]).map(
      (t) => t.function,
    );
    expect(fns.map((f) => f.name)).toEqual(["bash", "str_replace_based_edit_tool", "str_replace_editor", "computer", "memory"]);
    expect(fns[0]!.parameters.properties).toMatchObject({ command: { type: "string" }, restart: { type: "boolean" } });
    expect(fns[1]!.parameters.properties.command.enum).toEqual(["view", "create", "str_replace", "insert"]);
    expect(fns[1]!.parameters.required).toEqual(["command", "path"]);
    expect(fns[2]!.parameters.properties.command.enum).toContain("undo_edit");
    expect(fns[3]!.description).toContain("1024x768");
    expect(fns[3]!.parameters.properties.action.enum).toContain("screenshot");
    expect(fns[4]!.parameters.properties.command.enum).toContain("rename");
    expect(out.tool_choice).toEqual({ type: "function", function: { name: "bash" } });
    expect(notes.dropped).toEqual([]);
  });

  it("turns Claude's structured output into response_format json_schema", () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"], additionalProperties: false };
    const expected = { type: "json_schema", json_schema: { name: "response", schema } };
    expect(decode({ ...base, output_config: { format: { type: "json_schema", schema } } }).response_format).toEqual(expected);
    expect(decode({ ...base, output_format: { type: "json_schema", schema } }).response_format).toEqual(expected);
  });

  it.each([
    [{ ...base, messages: "hi" }, /messages: Input should be a valid list/],
    [{ ...base, model: 42 }, /model: Field required/],
    [{ ...base, model: "" }, /model: Field required/],
    [{ model: "m", messages: [] }, /max_tokens: Field required/],
    [{ ...base, max_tokens: 0 }, /max_tokens: Input should be a positive integer/],
    [{ ...base, max_tokens: "10" }, /max_tokens/],
    [{ ...base, temperature: "hot" }, /temperature/],
    [{ ...base, stream: "yes" }, /stream/],
    [{ ...base, stop_sequences: [1] }, /stop_sequences/],
    [{ ...base, system: 5 }, /system/],
    [{ ...base, system: [{ type: "image" }] }, /system.0/],
    [{ ...base, messages: [{ role: "tool", content: "x" }] }, /messages.0.role/],
    [{ ...base, messages: [{ role: "system", content: [{ type: "image" }] }] }, /messages.0.content.0: Input should be a text block/],
    [{ ...base, messages: [{ role: "user", content: 5 }] }, /messages.0.content/],
    [{ ...base, messages: [{ role: "user", content: [{ type: "audio" }] }] }, /messages.0.content.0.type: 'audio'/],
    [{ ...base, messages: [{ role: "assistant", content: [{ type: "image" }] }] }, /not valid in an assistant message/],
    [{ ...base, messages: [{ role: "user", content: [{ type: "image", source: { type: "file" } }] }] }, /image needs/],
    [{ ...base, messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: "https://x/a.pdf" } }] }] }, /by url/],
    [{ ...base, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] }, /tool_use_id/],
    [{ ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", name: "t" }] }] }, /needs an id and a name/],
    [{ ...base, tools: [{ name: "t" }] }, /tools.0.input_schema/],
    [{ ...base, tools: [{ name: "t", input_schema: {} }], tool_choice: { type: "tool" } }, /tool_choice.name/],
    [{ ...base, tools: [{ name: "t", input_schema: {} }], tool_choice: { type: "sometimes" } }, /tool_choice.type/],
  ])("refuses %j with a 400", (body, message) => {
    let error: unknown;
    try {
      decode(body as Record<string, unknown>);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).status).toBe(400);
    expect((error as RelayError).type).toBe("invalid_request_error");
    expect((error as RelayError).message).toMatch(message);
  });
});
