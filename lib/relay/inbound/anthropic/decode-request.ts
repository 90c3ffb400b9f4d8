// An Anthropic Messages request → the canonical OpenAI chat completions body. Pure.
//
// What has no OpenAI counterpart, and what becomes of it:
// - `thinking` (the request's extended-thinking switch) is dropped: the canonical body goes to
//   every vendor, and `reasoning_effort` is refused outright by OpenAI models that do not reason.
//   A channel that speaks Anthropic gets the caller's own body (passthrough), thinking included.
// - `thinking` / `redacted_thinking` blocks in the history are dropped, as Anthropic's API itself
//   does with earlier turns' thinking: their signatures mean nothing to another vendor.
// - `cache_control` marks are dropped (OpenAI caches by prefix on its own).
// - A `tool_result` becomes a `tool` message; its images, which a tool message cannot carry, go
//   into a user message right after the tool messages. `is_error` is kept as an "Error: " prefix.
// - A `document` becomes a `file` part (base64 PDF), or text (a plain-text or content source);
//   a document by URL is refused: OpenAI's chat API takes no file URL.
// - Server tools (web search, code execution…, any `type` but "custom") are refused: no
//   OpenAI-protocol upstream can run them. Their calls and results in an earlier assistant turn
//   (a conversation begun on Anthropic) are dropped: a tool call OpenAI sees must have its
//   `tool` message, and these had none.
// - Tool names over OpenAI's 64 characters are shortened on the way up (./tool-names.ts).
// - `metadata.user_id` becomes `user` when it fits OpenAI's 64 characters; Claude Code's (about
//   150: user, account and session ids) is left out rather than refused upstream.
import { type ConversionNotes, strictNotes } from "../notes";
import { RelayError } from "@/lib/relay/errors";
import { upstreamToolName } from "./tool-names";
import { isObj, type Obj } from "@/lib/obj";

/** A 400 in the words Anthropic's own API uses for a bad body. */
export const invalid = (message: string) => new RelayError(400, message, { type: "invalid_request_error" });

export interface DecodeOptions {
  /** `max_tokens` is required by /v1/messages, not by /v1/messages/count_tokens. */
  requireMaxTokens: boolean;
}

export function decodeMessagesRequest(body: Obj, opts: DecodeOptions, notes: ConversionNotes = strictNotes): Obj {
  if (typeof body.model !== "string" || body.model === "") throw invalid("model: Field required (a non-empty string)");
  if (!Array.isArray(body.messages)) throw invalid("messages: Input should be a valid list");
  const out: Obj = { model: body.model };
  const messages: Obj[] = [];
  const system = systemText(body.system);
  if (system !== null) messages.push({ role: "system", content: system });
  body.messages.forEach((m, i) => {
    messages.push(...decodeMessage(m, `messages.${i}`));
  });
  out.messages = messages;

  if (body.max_tokens === undefined) {
    if (opts.requireMaxTokens) throw invalid("max_tokens: Field required");
  } else if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    throw invalid("max_tokens: Input should be a positive integer");
  } else out.max_tokens = body.max_tokens;

  for (const name of ["temperature", "top_p", "top_k"] as const) {
    const v = body[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(`${name}: Input should be a valid number`);
    out[name] = v;
  }
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) {
    if (!Array.isArray(body.stop_sequences) || !body.stop_sequences.every((s) => typeof s === "string")) {
      throw invalid("stop_sequences: Input should be a valid list of strings");
    }
    if (body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  }
  if (body.stream !== undefined && body.stream !== null) {
    if (typeof body.stream !== "boolean") throw invalid("stream: Input should be a valid boolean");
    out.stream = body.stream;
  }
  const userId = isObj(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof userId === "string" && userId !== "" && userId.length <= MAX_USER_CHARS) {
    out.user = userId;
  }

  const tools = decodeTools(body.tools);
  if (tools.length > 0) out.tools = tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const { choice, parallel } = decodeToolChoice(body.tool_choice);
    // OpenAI refuses a tool_choice without tools; "none" with no tools means the same anyway.
    if (tools.length > 0) {
      out.tool_choice = choice;
      if (parallel === false) out.parallel_tool_calls = false;
    }
  }
  return out;
}

/** OpenAI's longest `user`. */
const MAX_USER_CHARS = 64;

function systemText(system: unknown): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === "string") return system === "" ? null : system;
  if (!Array.isArray(system)) throw invalid("system: Input should be a valid string or list of text blocks");
  const texts = system.map((block, i) => {
    if (!isObj(block) || block.type !== "text" || typeof block.text !== "string") {
      throw invalid(`system.${i}: Input should be a text block`);
    }
    return block.text;
  });
  return texts.length === 0 ? null : texts.join("\n");
}

function decodeMessage(m: unknown, where: string): Obj[] {
  if (!isObj(m)) throw invalid(`${where}: Input should be an object`);
  if (m.role !== "user" && m.role !== "assistant") throw invalid(`${where}.role: Input should be 'user' or 'assistant'`);
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (!Array.isArray(m.content)) throw invalid(`${where}.content: Input should be a valid string or list of content blocks`);
  const blocks = m.content.map((b, i) => {
    if (!isObj(b) || typeof b.type !== "string") throw invalid(`${where}.content.${i}: Input should be a content block`);
    return b;
  });
  return m.role === "assistant" ? [assistantMessage(blocks, where)] : userMessages(blocks, where);
}

/** Text blocks → content, tool_use → tool_calls; thinking is dropped (see the header). */
function assistantMessage(blocks: Obj[], where: string): Obj {
  const texts: string[] = [];
  const toolCalls: Obj[] = [];
  blocks.forEach((b, i) => {
    const at = `${where}.content.${i}`;
    switch (b.type) {
      case "text":
        texts.push(textOf(b, at));
        break;
      case "tool_use":
        if (typeof b.id !== "string" || typeof b.name !== "string") throw invalid(`${at}: tool_use needs an id and a name`);
        toolCalls.push({
          id: b.id,
          type: "function",
          function: { name: upstreamToolName(b.name), arguments: JSON.stringify(b.input ?? {}) },
        });
        break;
      case "thinking":
      case "redacted_thinking":
      case "server_tool_use":
        break;
      default:
        // A server tool's result (web_search_tool_result, code_execution_tool_result…).
        if (typeof b.type === "string" && b.type.endsWith("_tool_result")) break;
        throw invalid(`${at}.type: '${String(b.type)}' is not valid in an assistant message`);
    }
  });
  const msg: Obj = { role: "assistant", content: texts.length > 0 ? texts.join("") : null };
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  else if (msg.content === null) msg.content = "";
  return msg;
}

/**
 * A user turn: its tool results first, as `tool` messages (they must follow the assistant's
 * tool calls directly), then one user message with the rest (text, images, documents, and the
 * tool results' images).
 */
function userMessages(blocks: Obj[], where: string): Obj[] {
  const toolMessages: Obj[] = [];
  const parts: Obj[] = [];
  blocks.forEach((b, i) => {
    const at = `${where}.content.${i}`;
    switch (b.type) {
      case "text":
        parts.push({ type: "text", text: textOf(b, at) });
        break;
      case "image":
        parts.push(imagePart(b, at));
        break;
      case "document":
        parts.push(documentPart(b, at));
        break;
      case "tool_result": {
        if (typeof b.tool_use_id !== "string") throw invalid(`${at}.tool_use_id: Field required`);
        const { text, images } = toolResultContent(b.content, at);
        toolMessages.push({ role: "tool", tool_call_id: b.tool_use_id, content: b.is_error === true ? `Error: ${text}` : text });
        parts.push(...images);
        break;
      }
      case "thinking":
      case "redacted_thinking":
        break;
      default:
        throw invalid(`${at}.type: '${String(b.type)}' is not a supported content block`);
    }
  });
  if (parts.length === 0) return toolMessages;
  // A user turn of plain text stays a plain string: every vendor takes that.
  const content = parts.every((p) => p.type === "text") ? parts.map((p) => p.text as string).join("\n") : parts;
  return [...toolMessages, { role: "user", content }];
}

function textOf(b: Obj, at: string): string {
  if (typeof b.text !== "string") throw invalid(`${at}.text: Field required`);
  return b.text;
}

function imagePart(b: Obj, at: string): Obj {
  const src = b.source;
  if (isObj(src) && src.type === "base64" && typeof src.data === "string" && typeof src.media_type === "string") {
    return { type: "image_url", image_url: { url: `data:${src.media_type};base64,${src.data}` } };
  }
  if (isObj(src) && src.type === "url" && typeof src.url === "string") return { type: "image_url", image_url: { url: src.url } };
  throw invalid(`${at}.source: an image needs a base64 source (media_type, data) or a url source`);
}

function documentPart(b: Obj, at: string): Obj {
  const src = b.source;
  const title = typeof b.title === "string" && b.title !== "" ? b.title : null;
  if (isObj(src) && src.type === "base64" && typeof src.data === "string" && typeof src.media_type === "string") {
    return {
      type: "file",
      file: { filename: title ?? "document.pdf", file_data: `data:${src.media_type};base64,${src.data}` },
    };
  }
  if (isObj(src) && src.type === "text" && typeof src.data === "string") {
    return { type: "text", text: title ? `${title}\n\n${src.data}` : src.data };
  }
  if (isObj(src) && src.type === "content") {
    const text = typeof src.content === "string" ? src.content : toolResultContent(src.content, `${at}.source`).text;
    return { type: "text", text: title ? `${title}\n\n${text}` : text };
  }
  if (isObj(src) && src.type === "url") throw invalid(`${at}.source: a document by url is not supported here; send it as base64`);
  throw invalid(`${at}.source: a document needs a base64, text or content source`);
}

/** A tool result's content: a string, or text and image blocks. */
function toolResultContent(content: unknown, at: string): { text: string; images: Obj[] } {
  if (content === undefined || content === null) return { text: "", images: [] };
  if (typeof content === "string") return { text: content, images: [] };
  if (!Array.isArray(content)) throw invalid(`${at}.content: Input should be a valid string or list of blocks`);
  const texts: string[] = [];
  const images: Obj[] = [];
  content.forEach((b, i) => {
    const where = `${at}.content.${i}`;
    if (!isObj(b)) throw invalid(`${where}: Input should be a content block`);
    if (b.type === "text") texts.push(textOf(b, where));
    else if (b.type === "image") images.push(imagePart(b, where));
    else if (b.type === "document") {
      const part = documentPart(b, where);
      if (part.type === "text") texts.push(part.text as string);
      else images.push(part);
    } else throw invalid(`${where}.type: '${String(b.type)}' is not valid in a tool_result`);
  });
  return { text: texts.join("\n"), images };
}

function decodeTools(tools: unknown): Obj[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid("tools: Input should be a valid list");
  return tools.map((t, i) => {
    if (!isObj(t)) throw invalid(`tools.${i}: Input should be an object`);
    if (t.type !== undefined && t.type !== null && t.type !== "custom") {
      throw invalid(`tools.${i}: the server tool '${String(t.type)}' is not supported here; only custom tools (name, input_schema)`);
    }
    if (typeof t.name !== "string" || t.name === "") throw invalid(`tools.${i}.name: Field required`);
    if (!isObj(t.input_schema)) throw invalid(`tools.${i}.input_schema: Field required`);
    const fn: Obj = { name: upstreamToolName(t.name) };
    if (typeof t.description === "string") fn.description = t.description;
    fn.parameters = t.input_schema;
    return { type: "function", function: fn };
  });
}

function decodeToolChoice(choice: unknown): { choice: unknown; parallel: boolean | undefined } {
  if (!isObj(choice)) throw invalid("tool_choice: Input should be an object");
  const parallel = choice.disable_parallel_tool_use === true ? false : undefined;
  switch (choice.type) {
    case "auto":
      return { choice: "auto", parallel };
    case "any":
      return { choice: "required", parallel };
    case "none":
      return { choice: "none", parallel };
    case "tool":
      if (typeof choice.name !== "string" || choice.name === "") throw invalid("tool_choice.name: Field required");
      return { choice: { type: "function", function: { name: upstreamToolName(choice.name) } }, parallel };
    default:
      throw invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
}
