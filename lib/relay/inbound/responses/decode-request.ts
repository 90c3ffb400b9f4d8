// An OpenAI Responses request (`POST /v1/responses`) → the canonical chat completions body.
//
// Qiao stores nothing, so what needs a stored response (previous_response_id, conversation,
// item references, background mode, prompt templates) cannot be converted, and `store` is read but
// changes nothing. Built-in tools run on OpenAI's side only (web_search, file_search, computer
// use…): they cannot be converted either, since the canonical request goes to every vendor. Such
// requests are valid, and an OpenAI or Azure channel serves them as they came (native
// passthrough), so these are refusals handed to `refuse` (the thing is left out of the canonical
// body), answered only if the call is converted; see InboundProtocol.toCanonical. A body that can
// never be valid (no model, a malformed item) is a 400 at once. Reasoning items a client sends
// back are dropped: no vendor behind the chat protocol takes them.
import { type ConversionNotes, strictNotes } from "../notes";
import { RelayError } from "@/lib/relay/errors";
import { isObj, type Obj } from "@/lib/obj";

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

  const messages: Obj[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== "string") throw invalid("instructions", "instructions 必须是字符串");
    if (body.instructions !== "") messages.push({ role: "system", content: body.instructions });
  }
  const input = body.input;
  if (typeof input === "string") {
    messages.push({ role: "user", content: input });
  } else if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) addInputItem(messages, input[i], `input[${i}]`, counting);
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
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid("tools", "tools 必须是数组");
    const tools = body.tools.map((tool, i) => chatTool(tool, `tools[${i}]`, counting)).filter((t): t is Obj => t !== null);
    if (tools.length > 0) chat.tools = tools;
  }
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const choice = chatToolChoice(body.tool_choice, counting);
    if (choice !== null) chat.tool_choice = choice;
  }
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

/** One `input` item onto the chat messages. */
function addInputItem(messages: Obj[], item: unknown, param: string, refuse: Refuse): void {
  if (!isObj(item)) throw invalid(param, `${param} 必须是对象`);
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      messages.push(chatMessage(item, param, refuse));
      return;
    case "function_call": {
      if (typeof item.call_id !== "string" || item.call_id === "") throw invalid(`${param}.call_id`, `${param}.call_id 必须是非空字符串`);
      if (typeof item.name !== "string" || item.name === "") throw invalid(`${param}.name`, `${param}.name 必须是非空字符串`);
      if (typeof item.arguments !== "string") throw invalid(`${param}.arguments`, `${param}.arguments 必须是字符串`);
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      // Calls made in one turn are one assistant message in chat, after the turn's text if any.
      const last = messages.at(-1);
      if (last?.role === "assistant" && (last.tool_calls !== undefined || typeof last.content === "string")) {
        last.tool_calls = [...((last.tool_calls as Obj[] | undefined) ?? []), call];
      } else {
        messages.push({ role: "assistant", content: null, tool_calls: [call] });
      }
      return;
    }
    case "function_call_output": {
      if (typeof item.call_id !== "string" || item.call_id === "") throw invalid(`${param}.call_id`, `${param}.call_id 必须是非空字符串`);
      messages.push({ role: "tool", tool_call_id: item.call_id, content: toolOutput(item.output, `${param}.output`, refuse) });
      return;
    }
    case "reasoning":
      return;
    case "item_reference":
      refuse(unsupported(param, `${param}：不支持 item_reference，本服务不保存任何条目，请直接传条目内容`));
      return;
    default:
      if (typeof type !== "string") throw invalid(`${param}.type`, `${param}.type 必须是字符串`);
      // Built-in tools' calls and outputs (web_search_call, computer_call_output…): OpenAI's own.
      refuse(
        unsupported(
          param,
          `${param}：不支持 ${JSON.stringify(type)} 类型的条目（支持 message、function_call、function_call_output、reasoning）`,
        ),
      );
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

/** A Responses function tool (flat) → chat's (nested under `function`); null for a built-in tool (refused). */
function chatTool(tool: unknown, param: string, refuse: Refuse): Obj | null {
  if (!isObj(tool)) throw invalid(param, `${param} 必须是对象`);
  if (tool.type !== "function") {
    if (typeof tool.type !== "string") throw invalid(`${param}.type`, `${param}.type 必须是字符串`);
    refuse(
      unsupported(
        `${param}.type`,
        `${param}：不支持 ${JSON.stringify(tool.type)} 类型的工具，只支持 type 为 function 的工具（web_search、file_search 等内置工具只在 OpenAI 一侧运行）`,
      ),
    );
    return null;
  }
  if (typeof tool.name !== "string" || tool.name === "") throw invalid(`${param}.name`, `${param}.name 必须是非空字符串`);
  const fn: Obj = { name: tool.name };
  if (typeof tool.description === "string") fn.description = tool.description;
  if (isObj(tool.parameters)) fn.parameters = tool.parameters;
  if (typeof tool.strict === "boolean") fn.strict = tool.strict;
  return { type: "function", function: fn };
}

/** Chat's tool_choice; null for a built-in tool's (refused). */
function chatToolChoice(choice: unknown, refuse: Refuse): unknown {
  if (choice === "none" || choice === "auto" || choice === "required") return choice;
  if (isObj(choice) && choice.type === "function") {
    if (typeof choice.name !== "string" || choice.name === "") throw invalid("tool_choice.name", "tool_choice.name 必须是非空字符串");
    return { type: "function", function: { name: choice.name } };
  }
  if (!isObj(choice)) throw invalid("tool_choice", "tool_choice 必须是字符串或对象");
  refuse(unsupported("tool_choice", 'tool_choice 只支持 none、auto、required 或 {type: "function", name}'));
  return null;
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
