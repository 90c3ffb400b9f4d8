// Usage of non-streamed OpenAI-style responses. The pipeline forwards the upstream bytes
// unchanged; this parses them once to learn what to bill, counting locally when the upstream
// reported no (or all-zero) usage.
import { isObj, type Obj } from "@/lib/obj";
import { errorFromJson, type UpstreamError } from "../errors";
import { countCompletionTokens, countTextTokens } from "./token-count";
import { simpleUsage, type Usage } from "@/lib/billing/usage";
import type { RelayMode } from "../types";
import { hasTokens, normalizeUsage } from "./usage";

export interface ResponseUsageContext {
  /** Upstream model (for local counting). */
  model: string;
  /** Locally estimated prompt tokens (characters for speech). */
  promptTokens: number;
  /** transcriptions/translations: the request's `response_format` (default "json"). */
  responseFormat?: string;
}

export interface ResponseUsage {
  usage: Usage;
  sawUpstreamUsage: boolean;
  /** A 200 response that is really an error (`{"error":{…}}`, new-api treated these as errors). */
  error: UpstreamError | null;
  /** The parsed JSON body (null for text formats), so the caller never parses twice. */
  json: unknown;
}

const decoder = new TextDecoder();

function messageText(message: Obj, acc: { text: string; tools: number }): void {
  const c = message.content;
  if (typeof c === "string") acc.text += c;
  else if (Array.isArray(c)) for (const p of c) if (isObj(p) && typeof p.text === "string") acc.text += p.text;
  if (typeof message.reasoning_content === "string") acc.text += message.reasoning_content;
  else if (typeof message.reasoning === "string") acc.text += message.reasoning;
  if (Array.isArray(message.tool_calls)) {
    for (const tc of message.tool_calls) {
      if (!isObj(tc)) continue;
      acc.tools++;
      if (isObj(tc.function)) {
        if (typeof tc.function.name === "string") acc.text += tc.function.name;
        if (typeof tc.function.arguments === "string") acc.text += tc.function.arguments;
      }
    }
  }
  if (isObj(message.function_call)) {
    acc.tools++;
    if (typeof message.function_call.name === "string") acc.text += message.function_call.name;
    if (typeof message.function_call.arguments === "string") acc.text += message.function_call.arguments;
  }
}

/** Completion tokens of a chat/completions body, counted locally. */
export function countResponseCompletionTokens(mode: "chat" | "completions", body: unknown, model: string): number {
  if (!isObj(body) || !Array.isArray(body.choices)) return 0;
  const acc = { text: "", tools: 0 };
  for (const ch of body.choices) {
    if (!isObj(ch)) continue;
    if (mode === "completions") {
      if (typeof ch.text === "string") acc.text += ch.text;
    } else if (isObj(ch.message)) messageText(ch.message, acc);
  }
  return countCompletionTokens(acc.text, acc.tools, model);
}

/**
 * Text of a transcription in any `response_format`: json / verbose_json `{text}`, text as is,
 * srt and vtt without their cue numbers, timings and header.
 */
export function extractTranscriptText(body: string, format: string | undefined): string {
  const f = (format ?? "json").toLowerCase();
  if (f === "json" || f === "verbose_json" || f === "diarized_json") {
    try {
      const v: unknown = JSON.parse(body);
      return isObj(v) && typeof v.text === "string" ? v.text : "";
    } catch {
      return "";
    }
  }
  if (f === "srt" || f === "vtt") {
    const lines: string[] = [];
    for (const raw of body.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line === "WEBVTT" || line.includes("-->") || /^\d+$/.test(line) || /^(NOTE|STYLE|REGION)\b/.test(line)) continue;
      lines.push(line);
    }
    return lines.join(" ");
  }
  return body;
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The usage of a whole answer without parsing the answer: the last `"usage":{…}` (outside any
 * string: inside one its quotes would be escaped), parsed alone. Null when there is none, when the
 * answer mentions `"error"` (a 200 that is really an error must be read whole), or when the usage
 * reports no tokens; the caller then parses everything. `text` may be the bytes as latin1: the
 * usage object is ASCII.
 */
export function quickUsage(text: string): Usage | null {
  if (text.indexOf('"error"') !== -1) return null;
  const at = text.lastIndexOf('"usage":');
  if (at <= 0 || text.charCodeAt(at - 1) === 0x5c) return null;
  let i = at + 8;
  while (text.charCodeAt(i) === 0x20) i++;
  if (text.charCodeAt(i) !== 0x7b) return null;
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (inString) {
      if (c === 0x5c) j++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) {
      const u = normalizeUsage(parseOrNull(text.slice(i, j + 1)));
      return hasTokens(u) ? u : null;
    }
  }
  return null;
}

/** An answer whose usage was read on its own: the body is parsed only if `json` is read. */
class LazyJsonUsage implements ResponseUsage {
  readonly sawUpstreamUsage = true;
  readonly error = null;
  private parsed: unknown = undefined;
  constructor(
    readonly usage: Usage,
    private readonly body: Uint8Array | string,
  ) {}
  get json(): unknown {
    if (this.parsed === undefined) this.parsed = parseOrNull(typeof this.body === "string" ? this.body : decoder.decode(this.body));
    return this.parsed;
  }
}

/**
 * What to bill for a non-stream response. `body` is the upstream's raw bytes or text.
 *
 * | mode                        | upstream usage used when present | local fallback |
 * |-----------------------------|----------------------------------|----------------|
 * | chat, completions           | yes | prompt estimate + tokens of choices (+7 per tool call) |
 * | embeddings, moderations, rerank | yes | prompt estimate, completion 0 |
 * | transcriptions, translations| yes (gpt-4o-transcribe token usage) | prompt 0, completion = transcript tokens |
 * | images                      | yes (gpt-image token usage, informational) | zero (billed per image) |
 * | speech                      | n/a (audio bytes) | prompt = characters |
 */
export function extractResponseUsage(mode: RelayMode, body: Uint8Array | string, ctx: ResponseUsageContext): ResponseUsage {
  if (mode === "chat" || mode === "completions" || mode === "embeddings" || mode === "moderations" || mode === "rerank") {
    // The usual answer: its usage read on its own, the rest parsed only if someone asks.
    const usage = quickUsage(
      typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1"),
    );
    if (usage) return new LazyJsonUsage(usage, body);
  }
  const text = typeof body === "string" ? body : decoder.decode(body);
  if (mode === "speech") return { usage: simpleUsage(ctx.promptTokens, 0), sawUpstreamUsage: false, error: null, json: null };

  if (mode === "transcriptions" || mode === "translations") {
    const fmt = (ctx.responseFormat ?? "json").toLowerCase();
    let json: unknown = null;
    if (fmt.endsWith("json")) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      const err = isObj(json) && json.error ? errorFromJson(200, json) : null;
      if (err) return { usage: simpleUsage(0, 0), sawUpstreamUsage: false, error: err, json };
      const u = isObj(json) ? normalizeUsage(json.usage) : null;
      if (hasTokens(u)) return { usage: u, sawUpstreamUsage: true, error: null, json };
    }
    const transcript = extractTranscriptText(text, fmt);
    return { usage: simpleUsage(0, countTextTokens(transcript, ctx.model)), sawUpstreamUsage: false, error: null, json };
  }

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return usageFromJson(mode, json, ctx);
}

function usageFromJson(mode: RelayMode, json: unknown, ctx: ResponseUsageContext): ResponseUsage {
  if (isObj(json) && json.error !== undefined && json.error !== null && json.choices === undefined && json.data === undefined) {
    const err = errorFromJson(200, json);
    if (err) return { usage: simpleUsage(0, 0), sawUpstreamUsage: false, error: err, json };
  }
  let upstream = isObj(json) ? normalizeUsage(json.usage) : null;
  // Cohere-style rerank: meta.billed_units / meta.tokens
  if (!hasTokens(upstream) && mode === "rerank" && isObj(json) && isObj(json.meta)) {
    const tokens = isObj(json.meta.tokens) ? json.meta.tokens : isObj(json.meta.billed_units) ? json.meta.billed_units : null;
    upstream = tokens ? normalizeUsage({ input_tokens: tokens.input_tokens ?? 0, output_tokens: tokens.output_tokens ?? 0 }) : null;
  }
  if (hasTokens(upstream)) return { usage: upstream, sawUpstreamUsage: true, error: null, json };

  switch (mode) {
    case "chat":
    case "completions":
      return {
        usage: simpleUsage(ctx.promptTokens, countResponseCompletionTokens(mode, json, ctx.model)),
        sawUpstreamUsage: false,
        error: null,
        json,
      };
    case "images":
      return { usage: simpleUsage(0, 0), sawUpstreamUsage: false, error: null, json };
    default:
      return { usage: simpleUsage(ctx.promptTokens, 0), sawUpstreamUsage: false, error: null, json };
  }
}
