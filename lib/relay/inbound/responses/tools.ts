// The Responses tools a converted request can still offer, as chat function tools, and the way
// back: the decoder (./decode-request.ts) declares them, the encoders (./encode-response.ts,
// ./encode-stream.ts) turn a chat tool call into the item the caller's tool expects. Both read
// the same plan of the caller's own tools (`declaredTools`), so a name chosen going up is found
// coming back.
//
// Where tools are declared: the request's `tools`, and `additional_tools` input items
// (`{type:"additional_tools", role:"developer", tools:[…]}`), which add tools at their place in
// the conversation without changing the prompt before them (so OpenAI's prompt cache still hits).
// Codex 0.171 with its default model sends all its tools that way and no `tools` at all. Chat has
// one list of tools for the whole conversation, so a converted request offers them all, in the
// order declared: a tool added mid-conversation is offered from the start. The turn being
// answered comes after every item, so it sees exactly the tools the caller gave it; only the
// earlier turns' (already answered) view differs.
//
// - A function tool stays a function tool, its name unchanged.
// - A namespace (`{type:"namespace", name, tools}`, Codex's `multi_agent_v1`) is flattened: each
//   inner tool is offered as `<namespace>__<name>`, and its call answers with the inner `name` and
//   the `namespace` field, as OpenAI's own function_call and custom_tool_call items carry them.
//   The namespace `functions` is the default one, where OpenAI's models see the request's plain
//   function tools (`functions.exec` in the model's own tool syntax): Codex 0.171 declares its
//   main tools there and its history calls them by bare name (`{"type":"custom_tool_call",
//   "name":"exec"}`, no `namespace`). Its tools keep their bare names both ways.
// - A custom (freeform) tool (`{type:"custom"}`, Codex's `apply_patch` with its Lark grammar)
//   becomes a function of one string parameter `input`; its call answers as a `custom_tool_call`.
// - `local_shell` becomes a function `local_shell` taking the exec action's fields; its call
//   answers as a `local_shell_call` whose `action` is `{type:"exec", ...}`.
// Every other tool type is one OpenAI runs on its own side (web_search, file_search, mcp…): no
// other vendor can run it, so the plan leaves it out and names its family for `x-qiao-dropped`.
import { upstreamToolName } from "@/lib/relay/inbound/anthropic/tool-names";
import { isObj, type Obj } from "@/lib/obj";

/** What the caller declared behind one chat function name. */
export type CallerTool =
  | { kind: "function"; name: string; namespace?: string }
  | { kind: "custom"; name: string; namespace?: string }
  | { kind: "local_shell" };

/** One chat function offered for a caller's tool. */
export interface PlannedTool {
  chatName: string;
  caller: CallerTool;
  /** The caller's tool definition (the inner one for a namespace's). */
  tool: Obj;
}

export interface ToolPlan {
  tools: PlannedTool[];
  /** Families of the tools left out (`web_search`, `file_search`…), once each, in order. */
  dropped: string[];
  /** A chat function name → the caller's tool; undefined for a name the caller never declared. */
  byChatName: Map<string, CallerTool>;
}

export const LOCAL_SHELL = "local_shell";
const NAMESPACE_SEPARATOR = "__";
/** The namespace whose tools are the request's plain ones (see the header). */
export const DEFAULT_NAMESPACE = "functions";

/** A call's or tool_choice's namespace, with the default one meaning none. */
const ownNamespace = (namespace: string | undefined) => (namespace === DEFAULT_NAMESPACE ? undefined : namespace);

/**
 * Every tool a Responses request declares: its `tools`, then the tools of its `additional_tools`
 * input items, in input order. Malformed entries are passed on for the plan to skip (the decoder
 * reports them).
 */
export function declaredTools(request: Obj): unknown[] {
  const tools: unknown[] = Array.isArray(request.tools) ? [...request.tools] : [];
  if (Array.isArray(request.input)) {
    for (const item of request.input) {
      if (isObj(item) && item.type === "additional_tools" && Array.isArray(item.tools)) tools.push(...item.tools);
    }
  }
  return tools;
}

/**
 * A built-in tool's, or its call item's, family as `x-qiao-dropped` names it: the type without
 * the preview and version suffixes (`web_search_preview_2025_03_11` → `web_search`) and without
 * `_call`/`_call_output`/`_output` for an item (`web_search_call` → `web_search`, `tool_search_output`
 * → `tool_search`).
 */
export function toolFamily(type: string): string {
  return type
    .replace(/_(call|call_output|output)$/, "")
    .replace(/_\d{4}_\d{2}_\d{2}$/, "")
    .replace(/_preview$/, "");
}

/** The chat name of a namespace's inner tool: `<namespace>__<name>`, shortened past 64 characters. */
const namespacedName = (namespace: string, name: string) => upstreamToolName(`${namespace}${NAMESPACE_SEPARATOR}${name}`);

/**
 * The plan of a request's `tools`. Tools that are not objects or lack a name are skipped here:
 * the decoder reports them. A flattened name that another tool already has gets a numbered
 * suffix, so two tools never share a chat name.
 */
export function planTools(tools: unknown): ToolPlan {
  const plan: ToolPlan = { tools: [], dropped: [], byChatName: new Map() };
  if (!Array.isArray(tools)) return plan;
  // The caller's own top-level names are taken first: a flattened name must not shadow one.
  const taken = new Set<string>();
  for (const t of tools) if (isObj(t) && (t.type === "function" || t.type === "custom") && typeof t.name === "string") taken.add(t.name);
  // A default namespace's tools are top-level ones by another spelling.
  for (const t of tools) {
    if (!isObj(t) || t.type !== "namespace" || t.name !== DEFAULT_NAMESPACE || !Array.isArray(t.tools)) continue;
    for (const inner of t.tools) if (isObj(inner) && typeof inner.name === "string" && inner.name !== "") taken.add(inner.name);
  }
  const add = (chatName: string, caller: CallerTool, tool: Obj) => {
    plan.tools.push({ chatName, caller, tool });
    plan.byChatName.set(chatName, caller);
  };
  const unique = (name: string) => {
    let chosen = name;
    for (let n = 2; taken.has(chosen) || plan.byChatName.has(chosen); n++) chosen = upstreamToolName(`${name}_${n}`);
    taken.add(chosen);
    return chosen;
  };
  for (const t of tools) {
    if (!isObj(t) || typeof t.type !== "string") continue;
    switch (t.type) {
      case "function":
      case "custom":
        // Declared twice (in `tools` and again in an additional_tools item), a tool is offered once.
        if (typeof t.name === "string" && t.name !== "" && !plan.byChatName.has(t.name)) add(t.name, { kind: t.type, name: t.name }, t);
        break;
      case "local_shell":
        add(unique(LOCAL_SHELL), { kind: "local_shell" }, t);
        break;
      case "namespace": {
        if (typeof t.name !== "string" || t.name === "" || !Array.isArray(t.tools)) break;
        const namespace = ownNamespace(t.name);
        for (const inner of t.tools) {
          if (!isObj(inner) || typeof inner.name !== "string" || inner.name === "") continue;
          if (inner.type !== "function" && inner.type !== "custom") continue;
          if (namespace === undefined) {
            if (!plan.byChatName.has(inner.name)) add(inner.name, { kind: inner.type, name: inner.name }, inner);
            continue;
          }
          if (chatNameOfDeclared(plan, { kind: inner.type, name: inner.name, namespace }) !== undefined) continue;
          add(unique(namespacedName(namespace, inner.name)), { kind: inner.type, name: inner.name, namespace }, inner);
        }
        break;
      }
      default: {
        const family = toolFamily(t.type);
        if (!plan.dropped.includes(family)) plan.dropped.push(family);
      }
    }
  }
  return plan;
}

/** The chat name the plan gave the caller's tool, if it declared it. */
function chatNameOfDeclared(plan: ToolPlan, caller: CallerTool): string | undefined {
  const namespace = caller.kind === "local_shell" ? undefined : ownNamespace(caller.namespace);
  for (const p of plan.tools) {
    const c = p.caller;
    if (c.kind !== caller.kind) continue;
    if (c.kind === "local_shell") return p.chatName;
    if (caller.kind !== "local_shell" && c.name === caller.name && c.namespace === namespace) return p.chatName;
  }
  return undefined;
}

/** The chat name a replayed call goes under: the planned one, else the name the plan would give. */
export function chatNameOf(plan: ToolPlan, caller: CallerTool): string {
  const declared = chatNameOfDeclared(plan, caller);
  if (declared !== undefined) return declared;
  if (caller.kind === "local_shell") return LOCAL_SHELL;
  const namespace = ownNamespace(caller.namespace);
  return namespace ? namespacedName(namespace, caller.name) : caller.name;
}

/** The JSON schema of a custom tool's one parameter, the freeform text it takes. */
const CUSTOM_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's whole input, as free text in the format the description gives." } },
  required: ["input"],
  additionalProperties: false,
};

/** The exec action of a local_shell call, as OpenAI's `local_shell_call.action` has it (less `type`). */
const LOCAL_SHELL_PARAMETERS = {
  type: "object",
  properties: {
    command: { type: "array", items: { type: "string" }, description: "The command and its arguments (argv)." },
    working_directory: { type: "string", description: "The directory to run the command in." },
    timeout_ms: { type: "integer", description: "How long the command may run, in milliseconds." },
    env: { type: "object", additionalProperties: { type: "string" }, description: "Environment variables to set." },
  },
  required: ["command"],
  additionalProperties: false,
};

/** A planned tool as chat's function tool. */
export function chatFunctionTool(p: PlannedTool): Obj {
  const fn: Obj = { name: p.chatName };
  const description = typeof p.tool.description === "string" ? p.tool.description : undefined;
  switch (p.caller.kind) {
    case "function":
      if (description !== undefined) fn.description = description;
      if (isObj(p.tool.parameters)) fn.parameters = p.tool.parameters;
      if (typeof p.tool.strict === "boolean") fn.strict = p.tool.strict;
      break;
    case "custom":
      fn.description = [description, customFormatNote(p.tool.format)].filter(Boolean).join("\n\n");
      fn.parameters = CUSTOM_PARAMETERS;
      break;
    case "local_shell":
      fn.description = "Runs a command on the user's machine and returns its output.";
      fn.parameters = LOCAL_SHELL_PARAMETERS;
      break;
  }
  return { type: "function", function: fn };
}

/**
 * What a custom tool's `format` asks of its input, said in words: chat functions take JSON, so
 * the grammar cannot constrain decoding and the model reads it instead.
 */
function customFormatNote(format: unknown): string {
  if (!isObj(format) || format.type !== "grammar") return "Put the tool's whole input, as free text, in `input`.";
  const syntax = typeof format.syntax === "string" ? format.syntax : "grammar";
  const definition = typeof format.definition === "string" ? format.definition : "";
  return `Put the tool's whole input in \`input\`, as text that matches this ${syntax} grammar:\n${definition}`;
}

/** A chat tool call, as the caller's item: the fields of its output item beside id and status. */
export type CallerCall =
  | { type: "function_call"; callId: string; name: string; namespace?: string; arguments: string }
  | { type: "custom_tool_call"; callId: string; name: string; namespace?: string; input: string }
  | { type: "local_shell_call"; callId: string; action: Obj };

/** Reads a call's `input` from its JSON arguments; the text itself when the model sent no JSON. */
function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isObj(parsed) && typeof parsed.input === "string") return parsed.input;
  } catch {
    // A model that ignored the schema: its text is the input.
  }
  return args;
}

/** The exec action of a local_shell call from its JSON arguments (an empty command if unreadable). */
export function localShellAction(args: string): Obj {
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(args);
  } catch {
    // Left empty: the caller sees a call it cannot run, rather than a made-up command.
  }
  const a = isObj(parsed) ? parsed : {};
  const action: Obj = {
    type: "exec",
    command: Array.isArray(a.command) ? a.command.filter((c) => typeof c === "string") : [],
    env: isObj(a.env) ? a.env : {},
  };
  if (typeof a.working_directory === "string") action.working_directory = a.working_directory;
  if (typeof a.timeout_ms === "number") action.timeout_ms = a.timeout_ms;
  return action;
}

/** A complete chat call (name and whole arguments) → the caller's call. */
export function callerCall(plan: ToolPlan, call: { callId: string; name: string; arguments: string }): CallerCall {
  const tool = plan.byChatName.get(call.name);
  if (tool?.kind === "custom") {
    return {
      type: "custom_tool_call",
      callId: call.callId,
      name: tool.name,
      namespace: tool.namespace,
      input: customInput(call.arguments),
    };
  }
  if (tool?.kind === "local_shell") return { type: "local_shell_call", callId: call.callId, action: localShellAction(call.arguments) };
  return {
    type: "function_call",
    callId: call.callId,
    name: tool?.kind === "function" ? tool.name : call.name,
    namespace: tool?.kind === "function" ? tool.namespace : undefined,
    arguments: call.arguments,
  };
}
