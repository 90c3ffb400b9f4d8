// Local token counting (gpt-tokenizer, tiktoken-compatible). Used for the pre-consumption estimate
// and as the fallback when an upstream reports no usage. Upstream-reported usage always wins.
//
// Encoders are loaded lazily, once per process (each costs ~100–300 ms and some MB the first
// time). Relay workers load them on first need rather than at start, to keep idle memory low;
// `preloadTokenizers()` loads both now. Reservations never need them (estimateRequestPromptTokens).
//
// Counting is bounded: BPE is quadratic in the length of a piece (256 KB of one repeated letter
// took 48 s), and even short pieces of hostile text cost up to ~10 µs a character. So long
// stretches without a word boundary are cut into pieces of at most MAX_RUN characters, and one
// count (a request's prompt, an answer's text) tokenizes at most COUNT_BUDGET; text beyond it is
// estimated like estimateTokensFromBytes does.
import { isObj, type Obj } from "@/lib/obj";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { RelayMode } from "../types";

export type EncodingName = "o200k_base" | "cl100k_base";
type Counter = (text: string) => number;

const nodeRequire = createRequire(import.meta.url);
// Special-token strings in user text ("<|endoftext|>") are counted as ordinary text, never rejected.
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };
const counters: Partial<Record<EncodingName, Counter>> = {};

type TokenizerModule = {
  countTokens: (text: string, opts?: typeof ENCODE_OPTIONS) => number;
  setMergeCacheSize: (size: number) => void;
};
/** Pieces whose merges an encoder remembers (the library keeps 100 000, tens of MB once full). */
const MERGE_CACHE_SIZE = 10_000;

function requireEncoding(name: EncodingName): TokenizerModule {
  // Literal specifiers so bundlers can see them.
  return name === "o200k_base"
    ? (nodeRequire("gpt-tokenizer/encoding/o200k_base") as TokenizerModule)
    : (nodeRequire("gpt-tokenizer/encoding/cl100k_base") as TokenizerModule);
}

/** Rough count used only if the tokenizer package cannot be loaded at all (≈ 4 chars/token, CJK 1). */
function heuristicCount(text: string): number {
  let n = 0;
  let ascii = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else n++;
  }
  return n + Math.ceil(ascii / 4);
}

function counterFor(name: EncodingName): Counter {
  let c = counters[name];
  if (c) return c;
  try {
    const mod = requireEncoding(name);
    mod.setMergeCacheSize(MERGE_CACHE_SIZE);
    c = (text: string) => mod.countTokens(text, ENCODE_OPTIONS);
  } catch {
    c = heuristicCount;
  }
  counters[name] = c;
  return c;
}

/**
 * A tokenizer-free estimate from UTF-8 bytes: every 4 ASCII bytes count as a token and every
 * non-ASCII character (a UTF-8 lead byte) as one, which is what BPE tokenizers average on ordinary
 * English and CJK text. Used for reservations of small request bodies, where the JSON syntax
 * around the text makes it err on the high side.
 */
export function estimateTokensFromBytes(bytes: Uint8Array): number {
  let ascii = 0;
  let wide = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) ascii++;
    else if (b >= 0xc0) wide++;
  }
  return wide + Math.ceil(ascii / 4);
}

/** Characters per slice of the native ASCII test in tally(). */
const ESTIMATE_SLICE = 8192;

// tally()'s result: ASCII characters, and other characters (UTF-16 units but low surrogates).
let tallyAscii = 0;
let tallyWide = 0;

/**
 * The two tallies of estimateTextTokens over text[from, to), into tallyAscii / tallyWide. Long
 * texts go slice by slice: a slice whose UTF-8 length equals its length is all ASCII, which
 * Buffer.byteLength tells at memory speed (2 MB in ~0.2 ms, against ~5 ms for the loop); only
 * slices with other characters are walked.
 */
function tally(text: string, from: number, to: number): void {
  let ascii = 0;
  let wide = 0;
  for (let start = from; start < to; start += ESTIMATE_SLICE) {
    const end = Math.min(to, start + ESTIMATE_SLICE);
    if (end - start > 64 && Buffer.byteLength(text.slice(start, end), "utf8") === end - start) {
      ascii += end - start;
      continue;
    }
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) ascii++;
      else if (c < 0xdc00 || c > 0xdfff) wide++; // a low surrogate ends a character already counted
    }
  }
  tallyAscii = ascii;
  tallyWide = wide;
}

/**
 * estimateTokensFromBytes's rule on a string, from `from`: 4 ASCII characters or 1 other character
 * a token. `restAscii` / `restWide`: the tallies of text that followed `text` but was cut off
 * (a truncated prompt text, see planJsonPromptTokens).
 */
export function estimateTextTokens(text: string, from = 0, restAscii = 0, restWide = 0): number {
  tally(text, from, text.length);
  return tallyWide + restWide + Math.ceil((tallyAscii + restAscii) / 4);
}

/** Longest stretch handed to the tokenizer without a word boundary (" " after a non-space). */
const MAX_RUN = 128;
/** Text tokenized per call; slices end at word boundaries, so ordinary text counts exactly. */
const SLICE_CHARS = 1024;
/**
 * Tokenizer work one count may do, in characters: an ASCII character costs 1, any other
 * NON_ASCII_COST (BPE works on UTF-8 bytes, and hostile CJK costs ~10 µs a character against
 * well under 1 µs for English), and long stretches without a word boundary more (random letters
 * cost ~1.5 µs a character). ~100 000 characters of English (25 000 tokens) or ~10 000 of CJK
 * are counted exactly, and a few tens of ms of the worker's time at most whatever the text; the
 * rest of the count's text is estimated (estimateTextTokens). A budget of work, not of time, so a
 * count never depends on how busy the machine is.
 */
export const COUNT_BUDGET = 128 * 1024;
const NON_ASCII_COST = 8;
/**
 * Calls into the tokenizer one count may make: a prompt of tens of thousands of one-letter or
 * empty texts (2 MB of `{"role":"a","content":""}`) costs next to nothing in characters but a
 * call each (~0.5 µs; 77 000 messages took ~90 ms). Far above any real prompt's texts and slices,
 * so it changes no real count; past it, texts are estimated like past the budget.
 */
export const MAX_CALLS = 16 * 1024;
/** Every 16 characters into a stretch without a word boundary, a character weighs 1 more. */
const RUN_COST_SHIFT = 4;

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/**
 * One count's tokenizer work, bounded (COUNT_BUDGET). A cut where a space follows a non-space is a
 * piece boundary of both encodings' split patterns (no piece ends in that space or runs across
 * it), so slices cut there sum to the exact count; a stretch of MAX_RUN characters without one is
 * cut where it stands (about one token off per cut), since BPE is quadratic in a piece's length.
 */
class BoundedCount {
  private left = COUNT_BUDGET;
  private calls = 0;

  constructor(private readonly tokenize: Counter) {}

  /** True once the budget is spent: later texts are estimated, and no count so made is cached. */
  get exhausted(): boolean {
    return this.left <= 0 || this.calls >= MAX_CALLS;
  }

  /**
   * `restAscii` / `restWide`: the tallies of the text's end when only its head is given (a
   * TruncatedText: the head is long enough that the budget always runs out inside it).
   */
  count(text: string, restAscii = 0, restWide = 0): number {
    if (this.exhausted) return estimateTextTokens(text, 0, restAscii, restWide);
    let total = 0;
    let start = 0;
    let boundary = 0;
    let cost = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // Merging a piece costs more per character the longer the piece: a character deep in a
      // stretch without a word boundary weighs more (1 more every 16 characters).
      cost += (c < 0x80 ? 1 : NON_ASCII_COST) + ((i - boundary) >> RUN_COST_SHIFT);
      if (c === 0x20 && i > 0 && !isSpace(text.charCodeAt(i - 1))) {
        boundary = i;
        if (i - start < SLICE_CHARS) continue;
      } else if (i - boundary >= MAX_RUN && (c < 0xdc00 || c > 0xdfff))
        boundary = i; // never inside a surrogate pair
      else continue;
      total += this.tokenize(text.slice(start, i));
      start = i;
      this.left -= cost;
      this.calls++;
      cost = 0;
      if (this.exhausted) return total + estimateTextTokens(text, start, restAscii, restWide);
    }
    this.left -= cost;
    this.calls++;
    // (A truncated text never gets here: TRUNCATE_AT is past where its budget runs out.)
    const n = total + this.tokenize(start === 0 ? text : text.slice(start));
    return restAscii === 0 && restWide === 0 ? n : n + estimateTextTokens("", 0, restAscii, restWide);
  }
}

/** Load both encoders now (call once at server start). */
export async function preloadTokenizers(): Promise<void> {
  counterFor("o200k_base");
  counterFor("cl100k_base");
}

/**
 * o200k for the GPT-4o generation onwards (gpt-4o*, chatgpt-4o*, o1*, o3*, o4*, gpt-4.1*,
 * gpt-4.5*, gpt-5*, gpt-oss*); cl100k for everything else, including non-OpenAI models, where
 * any count is an approximation.
 */
export function encodingForModel(model: string): EncodingName {
  const m = model.toLowerCase();
  if (
    m.startsWith("gpt-4o") ||
    m.startsWith("chatgpt-4o") ||
    m.startsWith("o1") ||
    m.startsWith("o3") ||
    m.startsWith("o4") ||
    m.startsWith("gpt-4.1") ||
    m.startsWith("gpt-4.5") ||
    m.startsWith("gpt-5") ||
    m.startsWith("gpt-oss")
  ) {
    return "o200k_base";
  }
  return "cl100k_base";
}

/** Tokens of one text (an answer, a transcript), bounded like every count. */
export function countTextTokens(text: string, model: string): number {
  if (text === "") return 0;
  return new BoundedCount(counterFor(encodingForModel(model))).count(text);
}

/** Tokens added per tool call when completion tokens are counted locally (new-api's constant). */
export const TOOL_CALL_OVERHEAD_TOKENS = 7;

/**
 * The one rule for completion tokens counted locally (an upstream without usage): tokens of
 * everything delivered (content, reasoning, tool-call names and arguments) + 7 per tool call.
 */
export function countCompletionTokens(text: string, toolCalls: number, model: string): number {
  return countTextTokens(text, model) + TOOL_CALL_OVERHEAD_TOKENS * toolCalls;
}

// Prompt-side cache. Chat clients resend the whole history on every turn, so the same long
// message texts are counted again and again; hashing is ~20× cheaper than tokenising. Only texts
// of PROMPT_CACHE_MIN_CHARS or more are cached (shorter ones are cheap), keyed by encoding +
// SHA-1, at most PROMPT_CACHE_MAX entries, least recently used evicted. Process-local state.
const PROMPT_CACHE_MIN_CHARS = 512;
const PROMPT_CACHE_MAX = 4096;
const promptCache = new Map<string, number>();

/** A counter for one request's prompt: one budget over all its texts, long texts cached. */
class PromptCount {
  private readonly name: EncodingName;
  private readonly bounded: BoundedCount;

  constructor(model: string) {
    this.name = encodingForModel(model);
    this.bounded = new BoundedCount(counterFor(this.name));
  }

  readonly count: Counter = (text: string) => {
    const bounded = this.bounded;
    // A text longer than the budget can never be counted whole: not worth hashing.
    if (!isCacheable(text)) return bounded.count(text);
    const key = this.name + createHash("sha1").update(text).digest("base64");
    const hit = promptCache.get(key);
    if (hit !== undefined) {
      promptCache.delete(key);
      promptCache.set(key, hit);
      return hit;
    }
    const n = bounded.count(text);
    if (bounded.exhausted) return n;
    promptCache.set(key, n);
    if (promptCache.size > PROMPT_CACHE_MAX) promptCache.delete(promptCache.keys().next().value as string);
    return n;
  };

  countTruncated(text: TruncatedText): number {
    return this.bounded.count(text.head, text.restAscii, text.restWide);
  }
}

const isCacheable = (text: string) => text.length >= PROMPT_CACHE_MIN_CHARS && text.length <= COUNT_BUDGET;

function promptCounter(model: string): Counter {
  return new PromptCount(model).count;
}

/**
 * A prompt text longer than TRUNCATE_AT, cut there: the tallies of the cut-off end are all a count
 * can use of it, since a count's budget always runs out before TRUNCATE_AT (every character costs
 * at least 1, and slices are cut at most SLICE_CHARS + MAX_RUN + 1 characters apart).
 */
export interface TruncatedText {
  head: string;
  restAscii: number;
  restWide: number;
}
const TRUNCATE_AT = COUNT_BUDGET + 2 * SLICE_CHARS + 2 * MAX_RUN;

/**
 * A request's prompt count with everything but the tokenizer done: what planJsonPromptTokens
 * returns off the event loop, countPromptPlan finishes on it. `fixed` is the sum of the formula's
 * constants and of the estimates of texts the count's budget can never reach; `texts` are the
 * texts the count tokenizes (or finds cached), in order.
 */
export interface PromptPlan {
  fixed: number;
  texts: (string | TruncatedText)[];
}

/**
 * The prompt tokens pipeline bills for a JSON body when the upstream reports none: TTS input in
 * characters for speech, 0 for images and audio transcripts, the counted prompt otherwise.
 */
export function countJsonPromptTokens(mode: RelayMode, body: Record<string, unknown>, model: string): number {
  if (mode === "speech") return countTtsCharacters(String(body.input ?? ""));
  if (mode === "transcriptions" || mode === "translations" || mode === "images") return 0;
  return countRequestPromptTokens(mode, body, model);
}

/**
 * countJsonPromptTokens up to the tokenizer, for a large body parsed off the event loop: the walk
 * records the texts instead of counting them. countPromptPlan(plan) === countJsonPromptTokens(body)
 * exactly, cache included: a text is left out (replaced by its estimate in `fixed`) only when the
 * budget is surely spent before it and it is not one the cache could answer; texts past
 * TRUNCATE_AT are cut there. So what the event loop receives is bounded by the budget, not by the
 * body (a 2 MB prompt arrives as ~130 KB), and what it does with it is the count it did before.
 */
export function planJsonPromptTokens(mode: RelayMode, body: Record<string, unknown>, model: string): PromptPlan {
  if (mode === "speech") return { fixed: countTtsCharacters(String(body.input ?? "")), texts: [] };
  if (mode === "transcriptions" || mode === "translations" || mode === "images") return { fixed: 0, texts: [] };
  const texts: PromptPlan["texts"] = [];
  let fixed = 0;
  // Lower bounds of the budget and the calls spent so far: every character the bounded count sees
  // costs >= 1, every text makes a call; cacheable texts are taken for cache hits, which spend nothing.
  let spent = 0;
  let calls = 0;
  const record: Counter = (text) => {
    if (!isCacheable(text)) {
      if (spent >= COUNT_BUDGET || calls >= MAX_CALLS) {
        fixed += estimateTextTokens(text);
        return 0;
      }
      spent += text.length;
      calls++;
      if (text.length > TRUNCATE_AT) {
        tally(text, TRUNCATE_AT, text.length);
        texts.push({ head: text.slice(0, TRUNCATE_AT), restAscii: tallyAscii, restWide: tallyWide });
        return 0;
      }
    }
    texts.push(text);
    return 0;
  };
  const walked = requestPromptTokens(mode, body, model, record); // before adding: `record` adds to `fixed`
  return { fixed: fixed + walked, texts };
}

/** Finishes a PromptPlan: tokenizes its texts under one budget (loads the tokenizer if there are any). */
export function countPromptPlan(plan: PromptPlan, model: string): number {
  if (plan.texts.length === 0) return plan.fixed;
  const counter = new PromptCount(model);
  let n = plan.fixed;
  for (const text of plan.texts) n += typeof text === "string" ? counter.count(text) : counter.countTruncated(text);
  return n;
}

/** Characters (Unicode code points) of a TTS input; `tts*` models bill per character. */
export function countTtsCharacters(input: string): number {
  let n = input.length;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = input.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Chat prompts
// ---------------------------------------------------------------------------------------------

/** Per-message overhead (`<|start|>role…<|end|>`), and the reply primer added once at the end. */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMER_TOKENS = 3;
/** Overhead of the tool-definition block, added once when tools are present. */
export const TOOLS_OVERHEAD_TOKENS = 8;
/**
 * Images are never downloaded. Fixed estimates: `detail: "low"` is 85 tokens (OpenAI's fixed
 * low-detail cost); anything else is taken as a 1024×1024 high-detail image = 85 + 4 tiles × 170
 * = 765 tokens. gpt-4o-mini meters images at 2833 base + 5667 per tile (low 2833, default 25501).
 */
export const IMAGE_TOKENS_LOW = 85;
export const IMAGE_TOKENS_DEFAULT = 765;
export const IMAGE_TOKENS_LOW_MINI = 2833;
export const IMAGE_TOKENS_DEFAULT_MINI = 25501;
/** `input_audio` parts: new-api's flat estimate. */
export const AUDIO_PART_TOKENS = 100;
/** `file` parts (PDFs…): a flat estimate; the upstream's usage settles the real cost. */
export const FILE_PART_TOKENS = 1000;

function imageTokens(part: Obj, model: string): number {
  const img = part.image_url;
  const detail = isObj(img) ? img.detail : undefined;
  const mini = model.toLowerCase().startsWith("gpt-4o-mini");
  if (detail === "low") return mini ? IMAGE_TOKENS_LOW_MINI : IMAGE_TOKENS_LOW;
  return mini ? IMAGE_TOKENS_DEFAULT_MINI : IMAGE_TOKENS_DEFAULT;
}

function contentTokens(content: unknown, model: string, count: Counter): number {
  if (typeof content === "string") return count(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (typeof part === "string") {
      n += count(part);
      continue;
    }
    if (!isObj(part)) continue;
    switch (part.type) {
      case "text":
      case "input_text":
        if (typeof part.text === "string") n += count(part.text);
        break;
      case "image_url":
      case "input_image":
        n += imageTokens(part, model);
        break;
      case "input_audio":
        n += AUDIO_PART_TOKENS;
        break;
      case "file":
      case "input_file":
        n += FILE_PART_TOKENS;
        break;
      default:
        if (typeof part.text === "string") n += count(part.text);
    }
  }
  return n;
}

function jsonText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v);
  } catch {
    return "";
  }
}

/** Tokens of a `tools` (or legacy `functions`) array: every tool counts, not just the last. */
export function countToolsTokens(tools: unknown, model: string): number {
  return toolsTokens(tools, promptCounter(model));
}

function toolsTokens(tools: unknown, count: Counter): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  let n = TOOLS_OVERHEAD_TOKENS;
  for (const t of tools) {
    if (!isObj(t)) continue;
    // {type:"function",function:{…}}, legacy `functions` entries {name,…}, or a built-in tool.
    const fn = isObj(t.function) ? t.function : typeof t.name === "string" ? t : null;
    if (!fn) {
      n += count(jsonText(t));
      continue;
    }
    if (typeof fn.name === "string") n += count(fn.name);
    if (typeof fn.description === "string") n += count(fn.description);
    if (fn.parameters !== undefined) n += count(jsonText(fn.parameters));
  }
  return n;
}

type ChatBody = { messages?: unknown; tools?: unknown; functions?: unknown };

/**
 * Prompt tokens of a chat request, new-api's formula: per message 3 + role + content (+ name + 1),
 * plus assistant tool calls (name + arguments), plus every tool definition, plus 3 for the reply.
 */
export function countChatPromptTokens(body: ChatBody, model: string): number {
  return chatPromptTokens(body, model, promptCounter(model));
}

function chatPromptTokens(body: ChatBody, model: string, count: Counter): number {
  let n = 0;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const msg of messages) {
    if (!isObj(msg)) continue;
    n += TOKENS_PER_MESSAGE;
    if (typeof msg.role === "string") n += count(msg.role);
    n += contentTokens(msg.content, model, count);
    if (typeof msg.name === "string" && msg.name !== "") n += count(msg.name) + TOKENS_PER_NAME;
    if (Array.isArray(msg.tool_calls)) {
      for (const call of msg.tool_calls) {
        if (!isObj(call) || !isObj(call.function)) continue;
        if (typeof call.function.name === "string") n += count(call.function.name);
        if (typeof call.function.arguments === "string") n += count(call.function.arguments);
      }
    }
    if (isObj(msg.function_call)) {
      if (typeof msg.function_call.name === "string") n += count(msg.function_call.name);
      if (typeof msg.function_call.arguments === "string") n += count(msg.function_call.arguments);
    }
  }
  n += toolsTokens(body.tools, count) + toolsTokens(body.functions, count);
  return n + REPLY_PRIMER_TOKENS;
}

/**
 * Tokens of a completions `prompt` or an embeddings/moderations `input`: a string, an array of
 * strings, or pre-tokenised arrays (their length is the count).
 */
export function countInputTokens(input: unknown, model: string): number {
  return inputTokens(input, promptCounter(model));
}

function inputTokens(input: unknown, count: Counter): number {
  if (typeof input === "string") return input === "" ? 0 : count(input);
  if (!Array.isArray(input)) return 0;
  let n = 0;
  let numeric = 0;
  for (const item of input) {
    if (typeof item === "string") n += item === "" ? 0 : count(item);
    else if (typeof item === "number") numeric++;
    else if (Array.isArray(item)) n += item.length;
    else if (isObj(item)) {
      if (typeof item.text === "string") n += count(item.text);
      else if (item.type === "image_url") n += IMAGE_TOKENS_DEFAULT;
    }
  }
  return n + numeric;
}

/**
 * Prompt tokens of any request body the relay handles, tokenized (bounded: see BoundedCount).
 * Speech returns characters for `tts*` models (what they bill) and tokens of the input for others
 * (gpt-4o-mini-tts); transcriptions/translations return 0 (audio is billed by its transcript);
 * images return 0 (billed per image).
 */
export function countRequestPromptTokens(mode: RelayMode, body: Record<string, unknown>, model: string): number {
  return requestPromptTokens(mode, body, model, promptCounter(model));
}

/**
 * The same walk with every text estimated (estimateTextTokens) instead of tokenized: linear in the
 * body, no tokenizer loaded. For reservations, which the real usage settles.
 */
export function estimateRequestPromptTokens(mode: RelayMode, body: Record<string, unknown>, model: string): number {
  return requestPromptTokens(mode, body, model, estimateTextTokens);
}

function requestPromptTokens(mode: RelayMode, body: Record<string, unknown>, model: string, count: Counter): number {
  switch (mode) {
    case "chat":
      return chatPromptTokens(body, model, count);
    case "completions":
      return inputTokens(body.prompt, count);
    case "embeddings":
    case "moderations":
      return inputTokens(body.input, count);
    case "rerank": {
      let n = typeof body.query === "string" && body.query !== "" ? count(body.query) : 0;
      if (Array.isArray(body.documents)) n += inputTokens(body.documents, count);
      return n;
    }
    case "speech":
      if (typeof body.input !== "string") return 0;
      if (model.toLowerCase().startsWith("tts")) return countTtsCharacters(body.input);
      return body.input === "" ? 0 : count(body.input);
    case "images":
    case "transcriptions":
    case "translations":
      return 0;
  }
}
