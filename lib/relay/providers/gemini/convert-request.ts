// Canonical OpenAI chat/embeddings bodies → Gemini `generateContent` / `batchEmbedContents` bodies.
// Pure: prompt images arrive already fetched (`images`, keyed by their URL; see index.ts).
//
// Choices made here (Gemini's v1beta REST reference, and new-api's Gemini adaptor for defaults):
// - system and developer messages → `systemInstruction` (one part per message, in order);
//   assistant → role "model"; user and tool results → role "user". Consecutive tool results are
//   one user turn of `functionResponse` parts, as Gemini wants for parallel calls.
// - safetySettings: the five harm categories at BLOCK_NONE, as new-api sends by default
//   (GEMINI_SAFETY_SETTING): a gateway passes the prompt on and lets the caller's prompt decide;
//   Gemini still applies its non-adjustable filters, which come back as content_filter.
// - Tool parameter schemas keep only the keys of Gemini's `Schema` object (an allow-list, so
//   `$schema`, `additionalProperties`, `$ref`, `$defs`, `const`, `examples`, `strict`… go), and a
//   JSON-schema type union with "null" (["string","null"]) becomes `type` + `nullable: true`.
// - reasoning_effort → thinkingConfig: none/minimal → thinkingBudget 0, low 1024, medium 8192,
//   high 24576, with includeThoughts so the thoughts come back as reasoning_content. Gemini 3
//   replaces the budget by `thinkingLevel` (both at once is a 400): Pro takes low and high, Flash
//   also minimal and medium (https://ai.google.dev/gemini-api/docs/gemini-3); Pro cannot stop
//   thinking, so none is its least, low.
// - max_tokens (or max_completion_tokens) → maxOutputTokens, within the model's output limit on the
//   channel (providers/output-limit.ts): Gemini refuses a larger value (400 INVALID_ARGUMENT).
// - response_format json_schema → responseJsonSchema (JSON Schema as it came) on Gemini 2.5 and
//   later, which take it; older models get the schema cut to `responseSchema`'s OpenAPI subset.
// - Thought signatures: an answer's functionCall `thoughtSignature` travels in the tool call as
//   `extra_content.google.thought_signature` (the shape of Google's own OpenAI-compatible
//   endpoint) and goes back on the functionCall part when the client replays the call. Gemini 3
//   refuses a replayed call without one (400), so for gemini-3 models a model turn's first call
//   without a signature gets Google's documented "skip_thought_signature_validator" sentinel.
import { textNestsTooDeep, tooDeep } from "@/lib/relay/request/json-depth";
import { RelayError } from "../../errors";
import type { UserImage } from "@/lib/net/fetch-url";
import { isObj, type Obj } from "@/lib/obj";
import { clampOutputTokens } from "../output-limit";

const HARM_CATEGORIES = [
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
  "HARM_CATEGORY_CIVIC_INTEGRITY",
] as const;

export const SAFETY_SETTINGS = HARM_CATEGORIES.map((category) => ({ category, threshold: "BLOCK_NONE" }));

const THINKING_BUDGET: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576 };

/** The keys of Gemini's `Schema` object; anything else in a tool's JSON schema is dropped. */
const SCHEMA_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

function badRequest(message: string, param: string | null = null): RelayError {
  return new RelayError(400, message, { type: "invalid_request_error", code: "invalid_request", param });
}

/** A JSON schema (OpenAI tool parameters, response_format schema) → Gemini's Schema subset. */
export function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(k)) continue;
    if (k === "properties" && isObj(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, cleanSchema(s)]));
    } else if (k === "items" || k === "anyOf") {
      out[k] = cleanSchema(v);
    } else if (k === "type" && Array.isArray(v)) {
      const types = v.filter((t) => t !== "null");
      if (types.length < v.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
    } else {
      out[k] = v;
    }
  }
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (isObj(p) && typeof p.text === "string" ? p.text : ""))
    .filter((t) => t !== "")
    .join("\n");
}

function userParts(content: unknown, images: ReadonlyMap<string, UserImage>): Obj[] {
  // Gemini refuses empty text parts ("empty text parameter"): they are left out.
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const parts: Obj[] = [];
  for (const p of content) {
    if (!isObj(p)) continue;
    if (p.type === "text" && typeof p.text === "string") {
      if (p.text !== "") parts.push({ text: p.text });
    } else if (p.type === "image_url") {
      const url = isObj(p.image_url) ? p.image_url.url : p.image_url;
      const image = typeof url === "string" ? images.get(url) : undefined;
      if (!image) throw badRequest("image_url part without a usable url", "messages");
      parts.push({ inlineData: { mimeType: image.mediaType, data: image.base64 } });
    } else if (p.type === "file" && isObj(p.file) && typeof p.file.file_data === "string") {
      // A document sent inline (PDF, text…): `data:<type>;base64,<bytes>`.
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(p.file.file_data);
      if (!data) throw badRequest("file parts must carry file_data as a base64 data: URL", "messages");
      parts.push({ inlineData: { mimeType: data[1], data: data[2] } });
    } else if (p.type === "input_audio" && isObj(p.input_audio) && typeof p.input_audio.data === "string") {
      const format = typeof p.input_audio.format === "string" ? p.input_audio.format : "wav";
      parts.push({ inlineData: { mimeType: `audio/${format}`, data: p.input_audio.data } });
    }
  }
  return parts;
}

function parseArgs(raw: unknown): Obj {
  if (isObj(raw)) return raw;
  if (typeof raw !== "string" || raw.trim() === "") return {};
  if (textNestsTooDeep(raw)) throw tooDeep("tool_calls[].function.arguments ");
  try {
    const v = JSON.parse(raw);
    return isObj(v) ? v : { value: v };
  } catch {
    throw badRequest("tool_calls[].function.arguments is not valid JSON", "messages");
  }
}

export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** Models that refuse replayed function calls without a thought signature. */
export const needsThoughtSignature = (model: string) => /^(models\/)?gemini-3/.test(model);

function signatureOf(call: Obj): string | undefined {
  const google = isObj(call.extra_content) && isObj(call.extra_content.google) ? call.extra_content.google : null;
  return google && typeof google.thought_signature === "string" && google.thought_signature !== "" ? google.thought_signature : undefined;
}

/** OpenAI messages → Gemini `contents` and `systemInstruction`. */
export function toContents(
  messages: unknown,
  images: ReadonlyMap<string, UserImage>,
  sentinel = false,
): { contents: Obj[]; systemInstruction?: Obj } {
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest("messages must be a non-empty array", "messages");
  const system: Obj[] = [];
  const contents: Obj[] = [];
  const callNames = new Map<string, string>();
  for (const m of messages) {
    if (!isObj(m)) continue;
    const role = m.role;
    if (role === "system" || role === "developer") {
      const text = textOf(m.content);
      if (text !== "") system.push({ text });
    } else if (role === "assistant") {
      const parts: Obj[] = [];
      const text = textOf(m.content);
      if (text !== "") parts.push({ text });
      if (Array.isArray(m.tool_calls)) {
        let first = true;
        for (const call of m.tool_calls) {
          if (!isObj(call) || !isObj(call.function) || typeof call.function.name !== "string") continue;
          if (typeof call.id === "string") callNames.set(call.id, call.function.name);
          const part: Obj = { functionCall: { name: call.function.name, args: parseArgs(call.function.arguments) } };
          const signature = signatureOf(call) ?? (first && sentinel ? SKIP_SIGNATURE : undefined);
          if (signature) part.thoughtSignature = signature;
          parts.push(part);
          first = false;
        }
      }
      if (parts.length > 0) contents.push({ role: "model", parts });
    } else if (role === "tool") {
      const id = typeof m.tool_call_id === "string" ? m.tool_call_id : "";
      const name = callNames.get(id) ?? (typeof m.name === "string" ? m.name : "");
      if (name === "") throw badRequest(`tool message names no earlier tool call (tool_call_id "${id}")`, "messages");
      const part = { functionResponse: { name, response: { name, content: textOf(m.content) } } };
      const last = contents.at(-1);
      if (last && last.role === "user" && (last.parts as Obj[]).every((p) => "functionResponse" in p)) (last.parts as Obj[]).push(part);
      else contents.push({ role: "user", parts: [part] });
    } else {
      const parts = userParts(m.content, images);
      if (parts.length > 0) contents.push({ role: "user", parts });
    }
  }
  if (contents.length === 0) throw badRequest("messages hold no user or assistant content", "messages");
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}

function toolConfig(choice: unknown): Obj | undefined {
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === "string") {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } };
  }
  return undefined;
}

function tools(list: unknown): Obj[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const declarations: Obj[] = [];
  for (const t of list) {
    if (!isObj(t) || t.type !== "function" || !isObj(t.function) || typeof t.function.name !== "string") continue;
    const d: Obj = { name: t.function.name };
    if (typeof t.function.description === "string") d.description = t.function.description;
    const params = cleanSchema(t.function.parameters);
    // An empty object schema is refused by Gemini ("properties: should be non-empty for OBJECT type").
    if (isObj(params) && !(params.type === "object" && (!isObj(params.properties) || Object.keys(params.properties).length === 0))) {
      d.parameters = params;
    }
    declarations.push(d);
  }
  return declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined;
}

/** Gemini 3 and later: thinkingLevel instead of thinkingBudget. */
const thinksByLevel = (model: string) => /^(models\/)?gemini-([3-9]|\d\d)/.test(model);
/** Gemini 2.5 and later: responseJsonSchema. */
const takesJsonSchema = (model: string) => /^(models\/)?gemini-(2\.5|[3-9]|\d\d)/.test(model);

/** Gemini 3's thinking level per canonical effort: Flash takes all four, Pro only low and high. */
const FLASH_LEVEL: Record<string, string> = { none: "minimal", minimal: "minimal", low: "low", medium: "medium", high: "high" };
const PRO_LEVEL: Record<string, string> = { none: "low", minimal: "low", low: "low", medium: "high", high: "high" };

function thinkingConfig(effort: string, model: string): Obj {
  if (thinksByLevel(model)) return { thinkingLevel: (/flash/.test(model) ? FLASH_LEVEL : PRO_LEVEL)[effort], includeThoughts: true };
  const budget = THINKING_BUDGET[effort]!;
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}

function generationConfig(json: Obj, model: string, limit: number | null): Obj {
  const g: Obj = {};
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  if (num(json.temperature)) g.temperature = json.temperature;
  if (num(json.top_p)) g.topP = json.top_p;
  if (num(json.top_k)) g.topK = json.top_k;
  const max = num(json.max_completion_tokens) ? json.max_completion_tokens : json.max_tokens;
  if (num(max)) g.maxOutputTokens = clampOutputTokens(max, limit);
  if (typeof json.stop === "string") g.stopSequences = [json.stop];
  else if (Array.isArray(json.stop) && json.stop.length > 0) g.stopSequences = json.stop.filter((s) => typeof s === "string");
  if (num(json.n) && (json.n as number) > 1) g.candidateCount = json.n;
  if (num(json.seed)) g.seed = json.seed;
  if (num(json.presence_penalty)) g.presencePenalty = json.presence_penalty;
  if (num(json.frequency_penalty)) g.frequencyPenalty = json.frequency_penalty;
  const rf = json.response_format;
  if (isObj(rf) && rf.type === "json_object") g.responseMimeType = "application/json";
  else if (isObj(rf) && rf.type === "json_schema") {
    g.responseMimeType = "application/json";
    const schema = isObj(rf.json_schema) && isObj(rf.json_schema.schema) ? rf.json_schema.schema : null;
    if (schema && takesJsonSchema(model)) g.responseJsonSchema = schema;
    else if (schema) g.responseSchema = cleanSchema(schema);
  }
  if (typeof json.reasoning_effort === "string" && Object.hasOwn(THINKING_BUDGET, json.reasoning_effort)) {
    g.thinkingConfig = thinkingConfig(json.reasoning_effort, model);
  }
  return g;
}

/**
 * An OpenAI chat body → a Gemini `GenerateContentRequest` (the model goes in the URL). `outputLimit`
 * is the model's limit on the channel (null: unknown, nothing clamped).
 */
export function toGenerateContent(
  json: Obj,
  images: ReadonlyMap<string, UserImage> = new Map(),
  model = "",
  outputLimit: number | null = null,
): Obj {
  const { contents, systemInstruction } = toContents(json.messages, images, needsThoughtSignature(model));
  const body: Obj = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const t = tools(json.tools);
  if (t) {
    body.tools = t;
    const tc = toolConfig(json.tool_choice);
    if (tc) body.toolConfig = tc;
  }
  body.safetySettings = SAFETY_SETTINGS;
  const g = generationConfig(json, model, outputLimit);
  if (Object.keys(g).length > 0) body.generationConfig = g;
  return body;
}

/** The texts of an OpenAI embeddings `input` (a string or strings; token arrays are refused). */
export function embeddingTexts(input: unknown): string[] {
  const texts = typeof input === "string" ? [input] : Array.isArray(input) ? input : null;
  if (!texts || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
    throw badRequest("input must be a string or an array of strings for this channel", "input");
  }
  return texts as string[];
}

/** An OpenAI embeddings body → `batchEmbedContents` (`modelPath` is "models/{model}"). */
export function toBatchEmbed(json: Obj, modelPath: string): Obj {
  const dims = typeof json.dimensions === "number" ? json.dimensions : undefined;
  return {
    requests: embeddingTexts(json.input).map((text) => ({
      model: modelPath,
      content: { parts: [{ text }] },
      ...(dims ? { outputDimensionality: dims } : {}),
    })),
  };
}
