// An OpenAI Responses request (`POST /v1/responses`) → the canonical chat completions body.
//
// A channel that speaks the Responses API (OpenAI, Azure) never sees this body: it gets the
// caller's own. So the decoder serves the converted routes (Claude, Gemini, chat-only OpenAI
// compatible vendors), and there it degrades rather than refuses (issue 22):
// - Tools, from `tools` and from `additional_tools` input items alike (Codex 0.171's default
//   model sends them only there; all are offered from the start, ./tools.ts says why): function
//   tools as they are; namespaces flattened into `<namespace>__<name>` functions (the default
//   namespace `functions` keeps bare names), custom (freeform) tools as functions of one string
//   `input`, `local_shell` as a function taking the exec action (./tools.ts; the encoders answer
//   with the caller's own items). Parameter schemas go on as given: OpenAI's own annotations in
//   them (Codex marks some string parameters `"encrypted": true`) are keywords JSON Schema
//   ignores, so chat vendors and Claude's `input_schema` (draft 2020-12) take them, and Gemini's
//   converter keeps only the keys of its `Schema` object.
//   Built-in tools only OpenAI runs (web_search, file_search, code_interpreter, computer_use,
//   image_generation, mcp, tool_search…) are dropped and named (`notes.drop`, the
//   `x-qiao-dropped` header), as are their call items in the input; a tool_choice naming one
//   becomes "auto".
// - Reasoning items a client sends back (Codex's encrypted_content) are dropped silently: they are
//   the vendor's own opaque state and no vendor behind the chat protocol reads them.
// - `reasoning.effort` goes on as the canonical `reasoning_effort`, every value as given: each
//   target maps it to what it has (Claude's and Gemini's thinking budgets, where `minimal` asks for
//   none). `include`, `store` (Qiao stores nothing), `text.verbosity`, `reasoning.summary`,
//   `reasoning.context`, `truncation`, `safety_identifier`, `service_tier`, `metadata`,
//   `client_metadata` change nothing and are ignored;
//   `user` and `prompt_cache_key` go on as chat has them.
// Refused (`notes.refuse`, answered only when the attempt converts; docs/agents.md),
// because leaving them out would make the answer wrong rather than poorer:
// - what needs a stored response or file: `previous_response_id`, `conversation`, `background`,
//   `prompt` templates, `item_reference` items, images by `file_id`;
// - content no target of the canonical body reads: `input_file` and `input_audio` parts, and
//   function outputs other than text.
// A body that can never be valid (no model, a malformed item) is a 400 at once.
import { type ConversionNotes, strictNotes } from "../notes";
import { RelayError } from "@/lib/relay/errors";
import { isObj, type Obj } from "@/lib/obj";
import { type CallerTool, chatFunctionTool, chatNameOf, declaredTools, planTools, type ToolPlan, toolFamily } from "./tools";

function invalid(param: string, message: string): RelayError {
  return new RelayError(400, message, { type: "invalid_request_error", code: "invalid_request", param });
}

function unsupported(param: string, message: string): RelayError {
  return new RelayError(400, message, { type: "invalid_request_error", code: "unsupported_parameter", param });
}

const MESSAGE_ROLES = new Set(["user", "assistant", "system", "developer"]);

/** Takes a refusal of what cannot be converted (see the header). */
type Refuse = (error: RelayError) => void;

/**
 * The Responses body → the canonical OpenAI chat completions body; a 400 for what can never be
 * valid, and `refuse` for what is valid but cannot be converted (left out of the body).
 */
export function responsesToChat(body: Obj, notes: ConversionNotes = strictNotes): Obj {
  const refuse: Refuse = (error) => notes.refuse(error);
  const model = body.model;
  if (typeof model !== "string" || model === "") throw invalid("model", "model 必须是非空字符串");
  // Whether something was left out: then an input with nothing convertible left is no error.
  let refusedAny = false;
  const counting: Refuse = (error) => {
    refusedAny = true;
    refuse(error);
  };
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    counting(unsupported("previous_response_id", "不支持 previous_response_id：本服务不保存任何响应，请在 input 中带上完整的对话历史"));
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    counting(unsupported("conversation", "不支持 conversation：本服务不保存对话，请在 input 中带上完整的对话历史"));
  }
  if (body.background === true) counting(unsupported("background", "不支持 background 模式：本服务不保存响应，无法事后取回"));
  const prompt = body.prompt !== undefined && body.prompt !== null;
  if (prompt) counting(unsupported("prompt", "不支持 prompt 模板，请直接传 instructions 和 input"));

  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid("tools", "tools 必须是数组");
    for (const [i, tool] of body.tools.entries()) checkTool(tool, `tools[${i}]`);
  }
  if (Array.isArray(body.input)) {
    for (const [i, item] of body.input.entries()) {
      if (!isObj(item) || item.type !== "additional_tools") continue;
      if (!Array.isArray(item.tools)) throw invalid(`input[${i}].tools`, `input[${i}].tools 必须是数组`);
      for (const [j, tool] of item.tools.entries()) checkTool(tool, `input[${i}].tools[${j}]`);
    }
  }
  const plan = planTools(declaredTools(body));
  // What was left out counts like a refusal for the empty-input check below.
  const drop = (feature: string) => {
    refusedAny = true;
    notes.drop(feature);
  };
  for (const family of plan.dropped) notes.drop(family);

  const messages: Obj[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== "string") throw invalid("instructions", "instructions 必须是字符串");
    if (body.instructions !== "") messages.push({ role: "system", content: body.instructions });
  }
  const input = body.input;
  if (typeof input === "string") {
    messages.push({ role: "user", content: input });
  } else if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) addInputItem(messages, input[i], `input[${i}]`, { refuse: counting, drop, plan });
  } else if (!(prompt && (input === undefined || input === null))) {
    // A prompt template may stand for the whole input.
    throw invalid("input", "input 必须是字符串或数组");
  }
  if (!refusedAny && !messages.some((m) => m.role !== "system")) throw invalid("input", "input 不能为空");

  const chat: Obj = { model, messages };
  if (body.stream !== undefined && body.stream !== null) {
    if (typeof body.stream !== "boolean") throw invalid("stream", "stream 必须是布尔值");
    chat.stream = body.stream;
  }
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null) {
    if (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1)
      throw invalid("max_output_tokens", "max_output_tokens 必须是正整数");
    chat.max_tokens = max;
  }
  for (const [param, kind] of [
    ["temperature", "number"],
    ["top_p", "number"],
    ["parallel_tool_calls", "boolean"],
    ["user", "string"],
    ["prompt_cache_key", "string"],
  ] as const) {
    const v = body[param];
    if (v === undefined || v === null) continue;
    if (typeof v !== kind) throw invalid(param, `${param} 必须是${kind === "number" ? "数字" : kind === "boolean" ? "布尔值" : "字符串"}`);
    chat[param] = v;
  }
  let tools = plan.tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const choice = chatToolChoice(body.tool_choice, plan, notes);
    chat.tool_choice = choice.choice;
    if (choice.allowed) tools = tools.filter((t) => choice.allowed!.has(t.chatName));
  }
  if (tools.length > 0) chat.tools = tools.map(chatFunctionTool);
  // Responses takes these without tools; chat refuses them (OpenAI answers 400), so they go only with tools.
  if (chat.tools === undefined) {
    delete chat.tool_choice;
    delete chat.parallel_tool_calls;
  }
  const format = textFormat(body.text, counting);
  if (format) chat.response_format = format;
  if (body.reasoning !== undefined && body.reasoning !== null) {
    if (!isObj(body.reasoning)) throw invalid("reasoning", "reasoning 必须是对象");
    const effort = body.reasoning.effort;
    if (effort !== undefined && effort !== null) {
      if (typeof effort !== "string") throw invalid("reasoning.effort", "reasoning.effort 必须是字符串");
      chat.reasoning_effort = effort;
    }
  }
  return chat;
}

/** What an input item's conversion reports to, and the tools its calls are named by. */
interface ItemContext {
  refuse: Refuse;
  drop: (feature: string) => void;
  plan: ToolPlan;
}

/** One `input` item onto the chat messages. */
function addInputItem(messages: Obj[], item: unknown, param: string, ctx: ItemContext): void {
  if (!isObj(item)) throw invalid(param, `${param} 必须是对象`);
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      messages.push(chatMessage(item, param, ctx.refuse));
      return;
    case "function_call": {
      const caller: CallerTool = { kind: "function", name: nonEmpty(item.name, `${param}.name`), namespace: namespaceOf(item, param) };
      if (typeof item.arguments !== "string") throw invalid(`${param}.arguments`, `${param}.arguments 必须是字符串`);
      addCall(messages, nonEmpty(item.call_id, `${param}.call_id`), chatNameOf(ctx.plan, caller), item.arguments);
      return;
    }
    case "custom_tool_call": {
      const caller: CallerTool = { kind: "custom", name: nonEmpty(item.name, `${param}.name`), namespace: namespaceOf(item, param) };
      if (typeof item.input !== "string") throw invalid(`${param}.input`, `${param}.input 必须是字符串`);
      addCall(messages, nonEmpty(item.call_id, `${param}.call_id`), chatNameOf(ctx.plan, caller), JSON.stringify({ input: item.input }));
      return;
    }
    case "local_shell_call": {
      // Codex sends both ids; OpenAI's own items always have call_id, older ones only id.
      const callId = nonEmpty(item.call_id ?? item.id, `${param}.call_id`);
      if (!isObj(item.action)) throw invalid(`${param}.action`, `${param}.action 必须是对象`);
      const { type: _exec, ...action } = item.action;
      addCall(messages, callId, chatNameOf(ctx.plan, { kind: "local_shell" }), JSON.stringify(action));
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      // local_shell_call_output names its call by `id` in OpenAI's reference; Codex by call_id.
      const callId = nonEmpty(type === "local_shell_call_output" ? (item.call_id ?? item.id) : item.call_id, `${param}.call_id`);
      messages.push({ role: "tool", tool_call_id: callId, content: toolOutput(item.output, `${param}.output`, ctx.refuse) });
      return;
    }
    case "reasoning":
      return;
    // Its tools are in the plan already (see the header).
    case "additional_tools":
      return;
    case "item_reference":
      ctx.refuse(unsupported(param, `${param}：不支持 item_reference，本服务不保存任何条目，请直接传条目内容`));
      return;
    default:
      if (typeof type !== "string") throw invalid(`${param}.type`, `${param}.type 必须是字符串`);
      // Built-in tools' calls and outputs (web_search_call, computer_call_output…) and whatever
      // else OpenAI's side keeps (compaction): only OpenAI reads them, the history goes on without.
      ctx.drop(toolFamily(type));
  }
}

function nonEmpty(v: unknown, param: string): string {
  if (typeof v !== "string" || v === "") throw invalid(param, `${param} 必须是非空字符串`);
  return v;
}

/** A call item's `namespace` (the namespace tool it was made from), if any. */
function namespaceOf(item: Obj, param: string): string | undefined {
  if (item.namespace === undefined || item.namespace === null) return undefined;
  return nonEmpty(item.namespace, `${param}.namespace`);
}

/** A tool call onto the chat messages: calls made in one turn are one assistant message, after its text if any. */
function addCall(messages: Obj[], id: string, name: string, args: string): void {
  const call = { id, type: "function", function: { name, arguments: args } };
  const last = messages.at(-1);
  if (last?.role === "assistant" && (last.tool_calls !== undefined || typeof last.content === "string")) {
    last.tool_calls = [...((last.tool_calls as Obj[] | undefined) ?? []), call];
  } else {
    messages.push({ role: "assistant", content: null, tool_calls: [call] });
  }
}

function chatMessage(item: Obj, param: string, refuse: Refuse): Obj {
  const role = item.role;
  if (typeof role !== "string" || !MESSAGE_ROLES.has(role)) {
    throw invalid(`${param}.role`, `${param}.role 必须是 user、assistant、system 或 developer`);
  }
  // Chat's `developer` is OpenAI's own; every vendor behind the canonical request knows `system`.
  const chatRole = role === "developer" ? "system" : role;
  const content = item.content;
  if (typeof content === "string") return { role: chatRole, content };
  if (!Array.isArray(content)) throw invalid(`${param}.content`, `${param}.content 必须是字符串或数组`);
  const parts = content.map((part, i) => chatPart(part, `${param}.content[${i}]`, refuse)).filter((p): p is Obj => p !== null);
  if (chatRole === "user") return { role: chatRole, content: parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts };
  // Only user messages carry images in chat; every vendor takes the others' content as a string.
  if (parts.some((p) => p.type !== "text")) throw invalid(`${param}.content`, `${param}：只有 user 消息可以带图片`);
  return { role: chatRole, content: parts.map((p) => p.text as string).join(chatRole === "assistant" ? "" : "\n") };
}

/** One content part; null for one that cannot be converted (refused). */
function chatPart(part: unknown, param: string, refuse: Refuse): Obj | null {
  if (!isObj(part)) throw invalid(param, `${param} 必须是对象`);
  switch (part.type) {
    case "input_text":
    case "output_text":
      if (typeof part.text !== "string") throw invalid(`${param}.text`, `${param}.text 必须是字符串`);
      return { type: "text", text: part.text };
    case "refusal":
      if (typeof part.refusal !== "string") throw invalid(`${param}.refusal`, `${param}.refusal 必须是字符串`);
      return { type: "text", text: part.refusal };
    case "input_image": {
      if (part.file_id !== undefined && part.file_id !== null) {
        refuse(unsupported(`${param}.file_id`, `${param}：不支持 file_id，本服务不保存文件，请用 image_url（http(s) 或 data: URL）`));
        return null;
      }
      if (typeof part.image_url !== "string" || part.image_url === "") {
        throw invalid(`${param}.image_url`, `${param}.image_url 必须是非空字符串`);
      }
      const image: Obj = { url: part.image_url };
      if (typeof part.detail === "string") image.detail = part.detail;
      return { type: "image_url", image_url: image };
    }
    default:
      if (typeof part.type !== "string") throw invalid(`${param}.type`, `${param}.type 必须是字符串`);
      // input_file, input_audio…: OpenAI's own.
      refuse(unsupported(param, `${param}：不支持 ${JSON.stringify(part.type)} 类型的内容（支持 input_text、input_image、output_text）`));
      return null;
  }
}

/** A function call's output: a string, or text parts (joined). */
function toolOutput(output: unknown, param: string, refuse: Refuse): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    return output
      .map((part, i) => {
        if (isObj(part) && part.type === "input_text" && typeof part.text === "string") return part.text;
        if (!isObj(part)) throw invalid(`${param}[${i}]`, `${param}[${i}] 必须是对象`);
        refuse(unsupported(`${param}[${i}]`, `${param}[${i}]：函数输出只支持 input_text`));
        return "";
      })
      .join("");
  }
  throw invalid(param, `${param} 必须是字符串`);
}

/** What a tool must have for the plan (./tools.ts) to read it; built-in tools need only a type. */
function checkTool(tool: unknown, param: string): void {
  if (!isObj(tool)) throw invalid(param, `${param} 必须是对象`);
  if (typeof tool.type !== "string") throw invalid(`${param}.type`, `${param}.type 必须是字符串`);
  if (tool.type === "function" || tool.type === "custom") nonEmpty(tool.name, `${param}.name`);
  if (tool.type === "namespace") {
    nonEmpty(tool.name, `${param}.name`);
    if (!Array.isArray(tool.tools)) throw invalid(`${param}.tools`, `${param}.tools 必须是数组`);
    tool.tools.forEach((inner, i) => {
      if (!isObj(inner)) throw invalid(`${param}.tools[${i}]`, `${param}.tools[${i}] 必须是对象`);
      if (inner.type !== "function" && inner.type !== "custom") {
        throw invalid(`${param}.tools[${i}].type`, `${param}.tools[${i}].type 必须是 function 或 custom`);
      }
      nonEmpty(inner.name, `${param}.tools[${i}].name`);
    });
  }
}

/**
 * Chat's tool_choice, and for `allowed_tools` the chat names it allows (the tools offered are cut
 * to those). A built-in tool's choice is "auto": the tool is dropped, the model still answers.
 */
function chatToolChoice(choice: unknown, plan: ToolPlan, notes: ConversionNotes): { choice: unknown; allowed?: Set<string> } {
  if (choice === "none" || choice === "auto" || choice === "required") return { choice };
  if (!isObj(choice) || typeof choice.type !== "string") throw invalid("tool_choice", "tool_choice 必须是字符串或对象");
  switch (choice.type) {
    case "function":
    case "custom": {
      const caller: CallerTool = {
        kind: choice.type,
        name: nonEmpty(choice.name, "tool_choice.name"),
        namespace: namespaceOf(choice, "tool_choice"),
      };
      return { choice: { type: "function", function: { name: chatNameOf(plan, caller) } } };
    }
    case "local_shell":
      return { choice: { type: "function", function: { name: chatNameOf(plan, { kind: "local_shell" }) } } };
    case "allowed_tools": {
      const mode = choice.mode === "required" ? "required" : "auto";
      const allowed = new Set<string>();
      for (const t of Array.isArray(choice.tools) ? choice.tools : []) {
        if (!isObj(t)) continue;
        if (t.type === "local_shell") allowed.add(chatNameOf(plan, { kind: "local_shell" }));
        else if ((t.type === "function" || t.type === "custom") && typeof t.name === "string") {
          allowed.add(
            chatNameOf(plan, { kind: t.type, name: t.name, namespace: typeof t.namespace === "string" ? t.namespace : undefined }),
          );
        }
      }
      return { choice: mode, allowed };
    }
    default:
      notes.drop(toolFamily(choice.type));
      return { choice: "auto" };
  }
}

/** `text.format` → chat's `response_format`; null for plain text. */
function textFormat(text: unknown, refuse: Refuse): Obj | null {
  if (text === undefined || text === null) return null;
  if (!isObj(text)) throw invalid("text", "text 必须是对象");
  const format = text.format;
  if (format === undefined || format === null) return null;
  if (!isObj(format)) throw invalid("text.format", "text.format 必须是对象");
  switch (format.type) {
    case "text":
      return null;
    case "json_object":
      return { type: "json_object" };
    case "json_schema": {
      if (typeof format.name !== "string" || format.name === "") throw invalid("text.format.name", "text.format.name 必须是非空字符串");
      if (!isObj(format.schema)) throw invalid("text.format.schema", "text.format.schema 必须是对象");
      const schema: Obj = { name: format.name, schema: format.schema };
      if (typeof format.description === "string") schema.description = format.description;
      if (typeof format.strict === "boolean") schema.strict = format.strict;
      return { type: "json_schema", json_schema: schema };
    }
    default:
      refuse(unsupported("text.format.type", "text.format.type 只支持 text、json_object 或 json_schema"));
      return null;
  }
}
