// The plan of a Responses request's tools for a converted call, and the calls read back from it.
import { describe, expect, it } from "vitest";
import { callerCall, chatNameOf, declaredTools, planTools, toolFamily } from "./tools";

const fn = (name: string) => ({ type: "function", name, parameters: { type: "object", properties: {} } });

describe("planTools", () => {
  it("names a namespace's tools apart from the caller's own, and keeps long names within 64 characters", () => {
    const long = "x".repeat(60);
    const plan = planTools([
      fn("ns__a"),
      { type: "namespace", name: "ns", tools: [fn("a"), { type: "custom", name: "b" }] },
      { type: "namespace", name: long, tools: [fn("one"), fn("two")] },
    ]);
    const names = plan.tools.map((t) => t.chatName);
    expect(names.slice(0, 3)).toEqual(["ns__a", "ns__a_2", "ns__b"]);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(plan.byChatName.get("ns__a")).toEqual({ kind: "function", name: "ns__a" });
    expect(plan.byChatName.get("ns__a_2")).toEqual({ kind: "function", name: "a", namespace: "ns" });
    expect(plan.byChatName.get(names[3]!)).toEqual({ kind: "function", name: "one", namespace: long });
    // A replayed call of the namespace's `a` goes up under the name its tool has now.
    expect(chatNameOf(plan, { kind: "function", name: "a", namespace: "ns" })).toBe("ns__a_2");
    // One no longer declared still gets a name the model can read.
    expect(chatNameOf(plan, { kind: "function", name: "gone", namespace: "ns" })).toBe("ns__gone");
  });

  it("drops built-in tools by family, once each", () => {
    const plan = planTools([
      { type: "web_search", external_web_access: false },
      { type: "web_search_preview_2025_03_11" },
      { type: "file_search", vector_store_ids: ["vs_1"] },
      { type: "computer_use_preview" },
      { type: "mcp", server_label: "x" },
      fn("f"),
    ]);
    expect(plan.dropped).toEqual(["web_search", "file_search", "computer_use", "mcp"]);
    expect(plan.tools.map((t) => t.chatName)).toEqual(["f"]);
    expect(toolFamily("code_interpreter_call")).toBe("code_interpreter");
    expect(toolFamily("computer_call_output")).toBe("computer");
    expect(toolFamily("tool_search_output")).toBe("tool_search");
  });

  it("gives the default namespace `functions` bare names, and other namespaces never shadow them", () => {
    const plan = planTools([
      { type: "namespace", name: "clock", tools: [fn("exec")] },
      { type: "namespace", name: "functions", tools: [{ type: "custom", name: "exec" }, fn("wait")] },
    ]);
    expect(plan.tools.map((t) => t.chatName)).toEqual(["clock__exec", "exec", "wait"]);
    expect(plan.byChatName.get("exec")).toEqual({ kind: "custom", name: "exec" });
    // A call names the default namespace's tool with or without it.
    expect(chatNameOf(plan, { kind: "custom", name: "exec" })).toBe("exec");
    expect(chatNameOf(plan, { kind: "custom", name: "exec", namespace: "functions" })).toBe("exec");
    expect(chatNameOf(plan, { kind: "function", name: "gone", namespace: "functions" })).toBe("gone");
    // Its call answers as the caller's history has it: no namespace.
    expect(callerCall(plan, { callId: "c", name: "exec", arguments: '{"input":"x"}' })).toEqual({
      type: "custom_tool_call",
      callId: "c",
      name: "exec",
      namespace: undefined,
      input: "x",
    });
  });
});

describe("declaredTools", () => {
  it("reads `tools`, then every additional_tools item's tools in input order; a tool declared twice is offered once", () => {
    const request = {
      tools: [fn("a"), { type: "namespace", name: "ns", tools: [fn("x")] }],
      input: [
        { type: "additional_tools", role: "developer", tools: [fn("b")] },
        { role: "user", content: "hi" },
        // Added mid-conversation, and repeating what `tools` declared.
        { type: "additional_tools", role: "developer", tools: [fn("c"), fn("a"), { type: "namespace", name: "ns", tools: [fn("x")] }] },
        { type: "additional_tools", tools: "not a list" },
      ],
    };
    expect(declaredTools(request)).toHaveLength(6);
    expect(planTools(declaredTools(request)).tools.map((t) => t.chatName)).toEqual(["a", "ns__x", "b", "c"]);
    expect(declaredTools({ input: "hi" })).toEqual([]);
  });
});

describe("callerCall", () => {
  const plan = planTools([
    { type: "custom", name: "apply_patch" },
    { type: "local_shell" },
    { type: "namespace", name: "m", tools: [fn("spawn")] },
  ]);

  it("answers each tool with its own item: custom input, local shell action, namespaced function", () => {
    expect(callerCall(plan, { callId: "c1", name: "apply_patch", arguments: '{"input":"*** Begin Patch\\n"}' })).toEqual({
      type: "custom_tool_call",
      callId: "c1",
      name: "apply_patch",
      namespace: undefined,
      input: "*** Begin Patch\n",
    });
    expect(callerCall(plan, { callId: "c2", name: "local_shell", arguments: '{"command":["ls","-la"],"working_directory":"/w"}' })).toEqual(
      {
        type: "local_shell_call",
        callId: "c2",
        action: { type: "exec", command: ["ls", "-la"], env: {}, working_directory: "/w" },
      },
    );
    expect(callerCall(plan, { callId: "c3", name: "m__spawn", arguments: "{}" })).toEqual({
      type: "function_call",
      callId: "c3",
      name: "spawn",
      namespace: "m",
      arguments: "{}",
    });
    // A name the caller never declared stays as the model gave it.
    expect(callerCall(plan, { callId: "c4", name: "other", arguments: "{}" })).toMatchObject({ type: "function_call", name: "other" });
  });

  it("takes a model's bare text as the custom tool's input when it sent no JSON", () => {
    expect(callerCall(plan, { callId: "c1", name: "apply_patch", arguments: "*** Begin Patch" })).toMatchObject({
      input: "*** Begin Patch",
    });
  });
});
