// An Anthropic Messages request → the canonical OpenAI chat completions body. Pure.
//
// The decoder runs before a channel is chosen, and a channel that speaks Anthropic gets the
// caller's own body (passthrough): so it never refuses what it can degrade. What has no OpenAI
// counterpart, and what becomes of it on a converted route:
// - A `{"role": "system"}` entry inside `messages` (Claude Code's mid-conversation system text)
//   becomes a system message at that place, its text blocks joined. Another role is refused
//   (notes.refuse) and the message left out.
// - `thinking` and `output_config.effort` → `reasoning_effort`, which each target maps to its own
//   reasoning switch (or drops, by name, for a model that does not reason):
//     output_config.effort    low → low, medium → medium, high / xhigh / max → high
//     thinking adaptive       the effort when given, else medium (as between_tools)
//     thinking enabled        the effort when given, else by budget_tokens:
//                             under 4096 → low, under 16384 → medium, else high
//     thinking disabled       no reasoning_effort
//     effort without thinking the effort
//   An unknown thinking type is dropped as `thinking`.
// - `thinking` / `redacted_thinking` blocks in the history are dropped, as Anthropic's API itself
//   does with earlier turns' thinking: their signatures mean nothing to another vendor.
// - Structured output (`output_config.format`, or the older `output_format`: a json_schema) →
//   `response_format` json_schema.
// - Dropped and named (notes.drop): `context_management` (the target keeps no server-side context
//   to edit), `defer_loading` on a tool (the tool is kept and sent at once: no other vendor has
//   tool search), `mcp_servers` and `container` (Anthropic-hosted MCP servers and code containers),
//   and server tools by family: `web_search`, `web_fetch`, `code_execution`, `tool_search_tool_*`,
//   `mcp_toolset`, any other `type` that is neither "custom" nor a client tool. A `tool_choice`
//   naming a dropped tool becomes auto; one of "any" with no tool left goes with the tools.
//   Their calls and results in an earlier assistant turn (a conversation begun on Anthropic) are
//   dropped too: a tool call OpenAI sees must have its `tool` message, and these had none.
// - Client tools (bash, text_editor, computer, memory: the caller runs them) become function
//   tools with Anthropic's documented input schema (./client-tools.ts).
// - `cache_control` marks are dropped silently: a hint (OpenAI caches by prefix on its own).
// - A `tool_result` becomes a `tool` message; its images, which a tool message cannot carry, go
//   into a user message right after the tool messages. `is_error` is kept as an "Error: " prefix.
// - A `document` becomes a `file` part (base64 PDF), or text (a plain-text or content source).
// - Tool names over OpenAI's 64 characters are shortened on the way up (./tool-names.ts).
// - `metadata.user_id` becomes `user` when it fits OpenAI's 64 characters; Claude Code's (about
//   150: user, account and session ids) is left out rather than refused upstream.
//
// Still refused on a converted route (notes.refuse: the answer would be wrong without them), and
// passed through untouched on an Anthropic channel:
// - a document by URL (OpenAI's chat API takes no file URL, and the model would answer without
//   having read it);
// - a message role other than user, assistant or system.
// A body that is not a Messages request at all (no model, messages not a list, a content block of
// a kind this release does not know) throws: inbound/index.ts passes it through to an Anthropic
// channel all the same and refuses it only when converting.
import { type ConversionNotes, strictNotes } from "../notes";
import { RelayError } from "@/lib/relay/errors";
import { clientToolFunction, toolFamily } from "./client-tools";
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
    messages.push(...decodeMessage(m, `messages.${i}`, notes));
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

  const effort = reasoningEffort(body, notes);
  if (effort !== undefined) out.reasoning_effort = effort;
  const format = structuredOutput(body);
  if (format) out.response_format = format;
  for (const feature of ["context_management", "mcp_servers", "container"] as const) {
    if (body[feature] !== undefined && body[feature] !== null) notes.drop(feature);
  }

  const { tools, dropped } = decodeTools(body.tools, notes);
  if (tools.length > 0) out.tools = tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const { choice, parallel } = decodeToolChoice(body.tool_choice);
    // OpenAI refuses a tool_choice without tools; "none" with no tools means the same anyway. A
    // choice of a dropped tool leaves the model free to answer without it.
    if (tools.length > 0) {
      out.tool_choice = isObj(choice) && dropped.has((choice.function as Obj).name as string) ? "auto" : choice;
      if (parallel === false) out.parallel_tool_calls = false;
    }
  }
  return out;
}

/** Anthropic's effort levels → OpenAI's; `xhigh` and `max` have no higher OpenAI level. */
const EFFORTS: Readonly<Record<string, string>> = { low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

/** `reasoning_effort` for the request's `thinking` and `output_config.effort` (the header's table). */
function reasoningEffort(body: Obj, notes: ConversionNotes): string | undefined {
  const asked = isObj(body.output_config) ? body.output_config.effort : undefined;
  const effort = typeof asked === "string" && Object.hasOwn(EFFORTS, asked) ? EFFORTS[asked] : undefined;
  const thinking = body.thinking;
  if (thinking === undefined || thinking === null) return effort;
  switch (isObj(thinking) ? thinking.type : undefined) {
    case "disabled":
      return undefined;
    case "adaptive":
    case "between_tools":
      return effort ?? "medium";
    case "enabled": {
      if (effort) return effort;
      const budget = isObj(thinking) && typeof thinking.budget_tokens === "number" ? thinking.budget_tokens : 0;
      return budget < 4096 ? "low" : budget < 16384 ? "medium" : "high";
    }
    default:
      notes.drop("thinking");
      return effort;
  }
}

/** Claude's structured output (`output_config.format`, formerly `output_format`) → `response_format`. */
function structuredOutput(body: Obj): Obj | null {
  const format = isObj(body.output_config) && isObj(body.output_config.format) ? body.output_config.format : body.output_format;
  if (!isObj(format) || format.type !== "json_schema" || !isObj(format.schema)) return null;
  return { type: "json_schema", json_schema: { name: "response", schema: format.schema } };
}

/** OpenAI's longest `user`. */
const MAX_USER_CHARS = 64;

/** A system prompt (the top-level `system`, or a system message's content): its text, joined. */
function systemText(system: unknown, where = "system"): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === "string") return system === "" ? null : system;
  if (!Array.isArray(system)) throw invalid(`${where}: Input should be a valid string or list of text blocks`);
  const texts = system.map((block, i) => {
    if (!isObj(block) || block.type !== "text" || typeof block.text !== "string") {
      throw invalid(`${where}.${i}: Input should be a text block`);
    }
    return block.text;
  });
  return texts.length === 0 ? null : texts.join("\n");
}

function decodeMessage(m: unknown, where: string, notes: ConversionNotes): Obj[] {
  if (!isObj(m)) throw invalid(`${where}: Input should be an object`);
  if (m.role === "system") return [{ role: "system", content: systemText(m.content, `${where}.content`) ?? "" }];
  if (m.role !== "user" && m.role !== "assistant") {
    notes.refuse(invalid(`${where}.role: Input should be 'user', 'assistant' or 'system'`));
    return [];
  }
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (!Array.isArray(m.content)) throw invalid(`${where}.content: Input should be a valid string or list of content blocks`);
  const blocks = m.content.map((b, i) => {
    if (!isObj(b) || typeof b.type !== "string") throw invalid(`${where}.content.${i}: Input should be a content block`);
    return b;
  });
  return m.role === "assistant" ? [assistantMessage(blocks, where)] : userMessages(blocks, where, notes);
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
      case "mcp_tool_use":
        break;
      default:
        // A server tool's result (web_search_tool_result, code_execution_tool_result,
        // mcp_tool_result…).
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
function userMessages(blocks: Obj[], where: string, notes: ConversionNotes): Obj[] {
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
      case "document": {
        const part = documentPart(b, at, notes);
        if (part) parts.push(part);
        break;
      }
      case "tool_result": {
        if (typeof b.tool_use_id !== "string") throw invalid(`${at}.tool_use_id: Field required`);
        const { text, images } = toolResultContent(b.content, at, notes);
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

/** A document as a part, or null for one by URL (refused: see the header). */
function documentPart(b: Obj, at: string, notes: ConversionNotes): Obj | null {
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
    const text = typeof src.content === "string" ? src.content : toolResultContent(src.content, `${at}.source`, notes).text;
    return { type: "text", text: title ? `${title}\n\n${text}` : text };
  }
  if (isObj(src) && src.type === "url") {
    notes.refuse(invalid(`${at}.source: a document by url is not supported here; send it as base64`));
    return null;
  }
  throw invalid(`${at}.source: a document needs a base64, text or content source`);
}

/** A tool result's content: a string, or text and image blocks. */
function toolResultContent(content: unknown, at: string, notes: ConversionNotes): { text: string; images: Obj[] } {
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
      const part = documentPart(b, where, notes);
      if (part?.type === "text") texts.push(part.text as string);
      else if (part) images.push(part);
    } else throw invalid(`${where}.type: '${String(b.type)}' is not valid in a tool_result`);
  });
  return { text: texts.join("\n"), images };
}

/**
 * Custom and client tools → function tools; server tools dropped and named by family. `dropped`
 * holds the upstream names of the dropped tools, for a tool_choice naming one.
 */
function decodeTools(tools: unknown, notes: ConversionNotes): { tools: Obj[]; dropped: Set<string> } {
  const out: Obj[] = [];
  const dropped = new Set<string>();
  if (tools === undefined || tools === null) return { tools: out, dropped };
  if (!Array.isArray(tools)) throw invalid("tools: Input should be a valid list");
  tools.forEach((t, i) => {
    if (!isObj(t)) throw invalid(`tools.${i}: Input should be an object`);
    if (typeof t.name !== "string" || t.name === "") throw invalid(`tools.${i}.name: Field required`);
    if (t.defer_loading === true) notes.drop("defer_loading");
    let fn: Obj;
    if (t.type !== undefined && t.type !== null && t.type !== "custom") {
      const type = String(t.type);
      const client = clientToolFunction(t, type);
      if (!client) {
        notes.drop(toolFamily(type));
        dropped.add(upstreamToolName(t.name));
        return;
      }
      fn = { name: upstreamToolName(t.name), ...client };
    } else {
      if (!isObj(t.input_schema)) throw invalid(`tools.${i}.input_schema: Field required`);
      fn = { name: upstreamToolName(t.name) };
      if (typeof t.description === "string") fn.description = t.description;
      fn.parameters = t.input_schema;
    }
    out.push({ type: "function", function: fn });
  });
  return { tools: out, dropped };
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
