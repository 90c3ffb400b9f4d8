// A Gemini generateContent body → the canonical OpenAI chat completions body. Roles user/model
// become user/assistant, function calls become tool calls (with ids the matching function
// responses reuse, by id or else by name in order), systemInstruction a system message, and the
// generation settings their OpenAI names (thinkingConfig as reasoning_effort). Google's built-in
// tools (search, code execution, URL context…) are left out and named when converting: the model
// answers without them. What cannot be carried to another vendor without changing the answer
// (its context caches, files other than images by URL) is refused with a 400.
import { type ConversionNotes, strictNotes } from "../notes";
import { RelayError } from "@/lib/relay/errors";
import type { InboundRoute } from "@/lib/relay/inbound/types";
import { isObj, type Obj } from "@/lib/obj";

/** A body Gemini would refuse: 400 INVALID_ARGUMENT. */
export const invalid = (message: string) => new RelayError(400, message, { type: "invalid_request_error", code: "invalid_argument" });

/**
 * One protobuf message's fields with camelCase names. Google's JSON accepts a field's proto name
 * too (`inline_data`, `max_output_tokens`: its own curl examples use them), so each message is
 * read through this, one level at a time: free-form members (function args, responses, a
 * schema's property names) are never renamed.
 */
export function proto(o: Obj): Obj {
  let out: Obj | null = null;
  for (const key of Object.keys(o)) {
    if (!key.includes("_")) continue;
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    out ??= { ...o };
    if (out[camel] === undefined) out[camel] = o[key];
    delete out[key];
  }
  return out ?? o;
}

/** `models/x` → `x`: Gemini names a model either way. */
export function bareModel(name: string): string {
  return name.startsWith("models/") ? name.slice("models/".length) : name;
}

/**
 * Everything a generateContent body says, as the canonical chat completions body. What only
 * Google serves is left out: its built-in tools handed to `drop`, `cachedContent` (the prompt
 * itself) to `refuse`. A Gemini channel takes the request as it came, a converting one answers
 * the refusal or names the dropped tools (InboundProtocol).
 */
export function decodeGenerateContent(raw: Obj, route: InboundRoute, notes: ConversionNotes = strictNotes): Obj {
  const body = proto(raw);
  const model = route.model ?? (typeof body.model === "string" ? bareModel(body.model) : "");
  if (model === "") throw invalid("model is required");
  if (body.cachedContent !== undefined) notes.refuse(invalid("cachedContent is not supported: send the cached contents in the request"));
  const messages: Obj[] = [];
  const system = systemText(body.systemInstruction);
  if (system !== null) messages.push({ role: "system", content: system });
  messages.push(...decodeContents(body.contents));
  const out: Obj = { model, messages, stream: route.stream === true };
  const tools = decodeTools(body.tools, notes);
  if (tools.length > 0) {
    out.tools = tools;
    applyToolConfig(out, tools, body.toolConfig);
  } else if (body.toolConfig !== undefined && !isObj(body.toolConfig)) {
    throw invalid("toolConfig must be an object");
  }
  if (body.generationConfig !== undefined) applyGenerationConfig(out, body.generationConfig);
  return out;
}

/** systemInstruction: a Content (its text parts joined) or, as some clients send it, a string. */
function systemText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (!isObj(value) || !Array.isArray(value.parts)) throw invalid("systemInstruction must be a Content with parts");
  const texts: string[] = [];
  for (const part of value.parts) {
    if (!isObj(part) || typeof part.text !== "string") throw invalid("systemInstruction parts must be text");
    texts.push(part.text);
  }
  return texts.join("\n");
}

/** The conversation. Function calls are given ids; responses take them by id, else by name in order. */
function decodeContents(contents: unknown): Obj[] {
  if (!Array.isArray(contents) || contents.length === 0) throw invalid("contents must be a non-empty array");
  const messages: Obj[] = [];
  // Calls not yet answered, by function name, oldest first.
  const pending = new Map<string, string[]>();
  let callSeq = 0;
  contents.forEach((raw, i) => {
    if (!isObj(raw)) throw invalid(`contents[${i}] must be an object`);
    const content = proto(raw);
    const role = content.role ?? "user";
    if (role !== "user" && role !== "model" && role !== "function") throw invalid(`contents[${i}].role must be "user" or "model"`);
    if (!Array.isArray(content.parts)) throw invalid(`contents[${i}].parts must be an array`);
    if (role === "model") {
      messages.push(assistantMessage(content.parts, i, pending, () => `call_${++callSeq}`));
      return;
    }
    const parts: Obj[] = [];
    content.parts.forEach((raw, j) => {
      const where = `contents[${i}].parts[${j}]`;
      if (!isObj(raw)) throw invalid(`${where} must be an object`);
      const part = proto(raw);
      if (part.functionResponse !== undefined) {
        messages.push(toolMessage(part.functionResponse, where, pending));
        return;
      }
      const decoded = userPart(part, where);
      if (decoded) parts.push(decoded);
    });
    if (parts.length === 0) return;
    const onlyText = parts.length === 1 && parts[0]!.type === "text";
    messages.push({ role: "user", content: onlyText ? parts[0]!.text : parts });
  });
  return messages;
}

/** One part of a user turn as an OpenAI content part; null for what carries nothing (thoughts). */
function userPart(part: Obj, where: string): Obj | null {
  if (part.thought === true) return null;
  if (typeof part.text === "string") return { type: "text", text: part.text };
  if (part.inlineData !== undefined) {
    const d = isObj(part.inlineData) ? proto(part.inlineData) : null;
    if (!d || typeof d.mimeType !== "string" || typeof d.data !== "string") {
      throw invalid(`${where}.inlineData needs mimeType and data (base64)`);
    }
    const mime = d.mimeType.toLowerCase();
    if (mime.startsWith("image/")) return { type: "image_url", image_url: { url: `data:${mime};base64,${d.data}` } };
    const audio = /^audio\/(?:x-)?(wav|wave|mp3|mpeg)$/.exec(mime);
    if (audio)
      return { type: "input_audio", input_audio: { data: d.data, format: audio[1] === "wav" || audio[1] === "wave" ? "wav" : "mp3" } };
    return { type: "file", file: { file_data: `data:${mime};base64,${d.data}` } };
  }
  if (part.fileData !== undefined) {
    const f = isObj(part.fileData) ? proto(part.fileData) : null;
    if (!f || typeof f.fileUri !== "string" || f.fileUri === "") throw invalid(`${where}.fileData needs a fileUri`);
    if (typeof f.mimeType === "string" && f.mimeType !== "" && !f.mimeType.toLowerCase().startsWith("image/")) {
      throw invalid(`${where}.fileData: only images can be given by URI (${f.mimeType}); send other files as inlineData`);
    }
    return { type: "image_url", image_url: { url: f.fileUri } };
  }
  if (part.functionCall !== undefined) throw invalid(`${where}: a functionCall belongs in a "model" turn`);
  throw invalid(`${where} has no supported data (text, inlineData, fileData, functionResponse)`);
}

function assistantMessage(parts: unknown[], i: number, pending: Map<string, string[]>, newId: () => string): Obj {
  let text = "";
  const calls: Obj[] = [];
  parts.forEach((raw, j) => {
    const where = `contents[${i}].parts[${j}]`;
    if (!isObj(raw)) throw invalid(`${where} must be an object`);
    const part = proto(raw);
    // Thoughts and their signatures stay with Google: another vendor cannot read them back.
    if (part.thought === true) return;
    if (typeof part.text === "string") {
      text += part.text;
      return;
    }
    if (part.functionCall !== undefined) {
      const call = isObj(part.functionCall) ? proto(part.functionCall) : null;
      if (!call || typeof call.name !== "string" || call.name === "") throw invalid(`${where}.functionCall needs a name`);
      if (call.args !== undefined && call.args !== null && !isObj(call.args)) throw invalid(`${where}.functionCall.args must be an object`);
      const id = typeof call.id === "string" && call.id !== "" ? call.id : newId();
      const queue = pending.get(call.name) ?? [];
      queue.push(id);
      pending.set(call.name, queue);
      calls.push({ id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } });
      return;
    }
    throw invalid(`${where}: a "model" turn holds text and functionCall parts only`);
  });
  const message: Obj = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolMessage(raw: unknown, where: string, pending: Map<string, string[]>): Obj {
  const value = isObj(raw) ? proto(raw) : null;
  if (!value || typeof value.name !== "string" || value.name === "") throw invalid(`${where}.functionResponse needs a name`);
  const queue = pending.get(value.name) ?? [];
  let id: string | undefined;
  if (typeof value.id === "string" && value.id !== "") {
    const at = queue.indexOf(value.id);
    if (at >= 0) id = queue.splice(at, 1)[0];
  }
  id ??= queue.shift();
  if (id === undefined) throw invalid(`${where}.functionResponse "${value.name}" answers no earlier functionCall`);
  const response = value.response;
  return { role: "tool", tool_call_id: id, content: typeof response === "string" ? response : JSON.stringify(response ?? {}) };
}

/**
 * The names a dropped built-in tool goes by in `x-qiao-dropped` (the other protocols' names for the
 * same tools where they have one); any other built-in tool by its field name in snake case.
 */
const BUILT_IN_TOOLS: Readonly<Record<string, string>> = {
  googleSearch: "google_search",
  googleSearchRetrieval: "google_search",
  codeExecution: "code_execution",
  urlContext: "url_context",
};

/** functionDeclarations → OpenAI function tools. Google's built-in tools cannot go elsewhere: dropped. */
function decodeTools(value: unknown, notes: ConversionNotes): Obj[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid("tools must be an array");
  const out: Obj[] = [];
  value.forEach((raw, i) => {
    if (!isObj(raw)) throw invalid(`tools[${i}] must be an object`);
    const tool = proto(raw);
    for (const key of Object.keys(tool)) {
      if (key === "functionDeclarations") continue;
      notes.drop(BUILT_IN_TOOLS[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    }
    const declarations = tool.functionDeclarations ?? [];
    if (!Array.isArray(declarations)) throw invalid(`tools[${i}].functionDeclarations must be an array`);
    declarations.forEach((raw, j) => {
      const where = `tools[${i}].functionDeclarations[${j}]`;
      const d = isObj(raw) ? proto(raw) : null;
      if (!d || typeof d.name !== "string" || d.name === "") throw invalid(`${where} needs a name`);
      const fn: Obj = { name: d.name };
      if (typeof d.description === "string") fn.description = d.description;
      if (d.parametersJsonSchema !== undefined) {
        if (!isObj(d.parametersJsonSchema)) throw invalid(`${where}.parametersJsonSchema must be an object`);
        fn.parameters = lowerCaseTypes(d.parametersJsonSchema);
      } else if (d.parameters !== undefined && d.parameters !== null) {
        if (!isObj(d.parameters)) throw invalid(`${where}.parameters must be a Schema object`);
        fn.parameters = jsonSchema(d.parameters);
      } else {
        fn.parameters = { type: "object", properties: {} };
      }
      out.push({ type: "function", function: fn });
    });
  });
  return out;
}

/** Gemini-only Schema keys that JSON Schema validators (and OpenAI's) do not know. */
const GEMINI_ONLY_KEYS = new Set(["nullable", "propertyOrdering", "example"]);

/**
 * A Gemini Schema (OpenAPI 3.0 subset, types often upper case: "OBJECT") → JSON Schema: types
 * lower-cased, `nullable` as a "null" type, Gemini-only keys dropped, nested schemas alike.
 */
export function jsonSchema(raw: Obj): Obj {
  const schema = proto(raw);
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GEMINI_ONLY_KEYS.has(key)) continue;
    if (key === "type" && typeof value === "string") out.type = value.toLowerCase();
    else if (key === "properties" && isObj(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObj(v) ? jsonSchema(v) : v]));
    } else if (key === "items" && isObj(value)) out.items = jsonSchema(value);
    else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
      out[key] = value.map((v) => (isObj(v) ? jsonSchema(v) : v));
    } else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

/** The members of a JSON Schema that hold one subschema, and those that hold a map or list of them. */
const SUBSCHEMA = ["items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/**
 * A JSON Schema (`responseJsonSchema`, `parametersJsonSchema`) with its type names lower-cased.
 * Google accepts its Schema's upper-case names there too, and Gemini CLI sends them ("OBJECT",
 * "STRING"); OpenAI and Anthropic validate the schema as JSON Schema, whose names are lower case.
 * Everything else is kept as it came: these are JSON Schemas, not Gemini's subset.
 */
export function lowerCaseTypes(schema: Obj): Obj {
  let out: Obj | null = null;
  const set = (key: string, value: unknown) => {
    out ??= { ...schema };
    out[key] = value;
  };
  const type = schema.type;
  if (typeof type === "string" && type !== type.toLowerCase()) set("type", type.toLowerCase());
  else if (Array.isArray(type) && type.some((t) => typeof t === "string" && t !== t.toLowerCase())) {
    set(
      "type",
      type.map((t) => (typeof t === "string" ? t.toLowerCase() : t)),
    );
  }
  for (const key of SUBSCHEMA) {
    const sub = schema[key];
    if (isObj(sub)) {
      const lowered = lowerCaseTypes(sub);
      if (lowered !== sub) set(key, lowered);
    }
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (!isObj(map)) continue;
    let changed = false;
    const next: Obj = {};
    for (const [name, sub] of Object.entries(map)) {
      next[name] = isObj(sub) ? lowerCaseTypes(sub) : sub;
      if (next[name] !== sub) changed = true;
    }
    if (changed) set(key, next);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const next = list.map((sub) => (isObj(sub) ? lowerCaseTypes(sub) : sub));
    if (next.some((sub, i) => sub !== list[i])) set(key, next);
  }
  return out ?? schema;
}

/** functionCallingConfig: AUTO → auto, NONE → none, ANY → required (or the one allowed function). */
function applyToolConfig(out: Obj, tools: Obj[], raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (!isObj(raw)) throw invalid("toolConfig must be an object");
  const rawConfig = proto(raw).functionCallingConfig;
  if (rawConfig === undefined || rawConfig === null) return;
  if (!isObj(rawConfig)) throw invalid("toolConfig.functionCallingConfig must be an object");
  const config = proto(rawConfig);
  const mode = config.mode ?? "AUTO";
  const allowed = config.allowedFunctionNames;
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((n) => typeof n === "string"))) {
    throw invalid("functionCallingConfig.allowedFunctionNames must be an array of names");
  }
  const names = (allowed as string[] | undefined) ?? [];
  switch (mode) {
    case "MODE_UNSPECIFIED":
    case "AUTO":
    case "VALIDATED":
      out.tool_choice = "auto";
      break;
    case "NONE":
      out.tool_choice = "none";
      break;
    case "ANY": {
      if (names.length === 0) {
        out.tool_choice = "required";
        break;
      }
      const known = new Set(tools.map((t) => (t.function as Obj).name));
      for (const n of names) if (!known.has(n)) throw invalid(`allowedFunctionNames names an undeclared function: ${n}`);
      // Only the allowed functions are offered; with one, it is the forced choice.
      out.tools = tools.filter((t) => names.includes((t.function as Obj).name as string));
      out.tool_choice = names.length === 1 ? { type: "function", function: { name: names[0] } } : "required";
      break;
    }
    default:
      throw invalid(`functionCallingConfig.mode must be AUTO, ANY or NONE (got ${JSON.stringify(mode)})`);
  }
}

const NUMBER_SETTINGS: ReadonlyArray<[string, string]> = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["topK", "top_k"],
  ["presencePenalty", "presence_penalty"],
  ["frequencyPenalty", "frequency_penalty"],
];
const INTEGER_SETTINGS: ReadonlyArray<[string, string]> = [
  ["maxOutputTokens", "max_tokens"],
  ["candidateCount", "n"],
  ["seed", "seed"],
];

/** Gemini 2.5's thinking budgets at the top of each canonical effort (the Gemini adapter's own, in reverse). */
const EFFORT_BY_BUDGET: ReadonlyArray<[number, string]> = [
  [1024, "low"],
  [8192, "medium"],
];

/**
 * thinkingConfig → reasoning_effort: a budget of 0 turns thinking off ("none"), a positive budget
 * takes the effort whose budget covers it, a thinkingLevel (Gemini 3) its own name. Dynamic
 * thinking (-1), includeThoughts alone or an unknown level say nothing the target could take.
 */
function applyThinkingConfig(out: Obj, raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (!isObj(raw)) throw invalid("generationConfig.thinkingConfig must be an object");
  const config = proto(raw);
  const level = typeof config.thinkingLevel === "string" ? config.thinkingLevel.toLowerCase() : "";
  if (["minimal", "low", "medium", "high"].includes(level)) {
    out.reasoning_effort = level;
    return;
  }
  const budget = config.thinkingBudget;
  if (budget === undefined || budget === null) return;
  if (!Number.isInteger(budget)) throw invalid("generationConfig.thinkingConfig.thinkingBudget must be an integer");
  if (budget === 0) out.reasoning_effort = "none";
  else if ((budget as number) > 0) out.reasoning_effort = EFFORT_BY_BUDGET.find(([top]) => (budget as number) <= top)?.[1] ?? "high";
}

function applyGenerationConfig(out: Obj, raw: unknown): void {
  if (!isObj(raw)) throw invalid("generationConfig must be an object");
  const value = proto(raw);
  for (const [from, to] of NUMBER_SETTINGS) {
    const v = value[from];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(`generationConfig.${from} must be a number`);
    out[to] = v;
  }
  for (const [from, to] of INTEGER_SETTINGS) {
    const v = value[from];
    if (v === undefined || v === null) continue;
    if (!Number.isInteger(v)) throw invalid(`generationConfig.${from} must be an integer`);
    if (from !== "seed" && (v as number) < 1) throw invalid(`generationConfig.${from} must be at least 1`);
    out[to] = v;
  }
  applyThinkingConfig(out, value.thinkingConfig);
  const stop = value.stopSequences;
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((s) => typeof s === "string")) throw invalid("generationConfig.stopSequences must be strings");
    if (stop.length > 0) out.stop = stop;
  }
  const mime = value.responseMimeType;
  if (mime !== undefined && mime !== null && typeof mime !== "string") throw invalid("generationConfig.responseMimeType must be a string");
  const schema = value.responseJsonSchema ?? value.responseSchema;
  if (schema !== undefined && schema !== null) {
    if (!isObj(schema)) throw invalid("generationConfig.responseSchema must be a Schema object");
    if (mime !== "application/json") throw invalid('generationConfig.responseSchema needs responseMimeType "application/json"');
    const converted = value.responseJsonSchema !== undefined ? lowerCaseTypes(schema) : jsonSchema(schema);
    out.response_format = { type: "json_schema", json_schema: { name: "response", schema: converted } };
  } else if (mime === "application/json") {
    out.response_format = { type: "json_object" };
  } else if (typeof mime === "string" && mime !== "" && mime !== "text/plain") {
    throw invalid(`generationConfig.responseMimeType ${mime} is not supported (text/plain or application/json)`);
  }
}
