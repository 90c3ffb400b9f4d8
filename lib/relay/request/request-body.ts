// A JSON request body, read once: the parse, the 400s that come before anything else happens, the
// reservation's prompt estimate and the local prompt count's plan.
//
// A small body is read on the event loop (parseBody in call/parse-request.ts). A large one
// (LARGE_BODY_BYTES or more) is read by summariseJsonBody in a thread (body-thread.ts): parsing
// and walking megabytes would stall every other request of the relay process for milliseconds
// each time. The event loop gets a summary whose size does not grow with the body: the model,
// the verdict of the request rules, the reservation's estimate, the count's plan (bounded by the
// count's budget, see planJsonPromptTokens) and the top-level members, the small ones as values
// and the large ones (a `messages` of megabytes) as byte offsets into the body, parsed on the
// event loop only if something reads them. The bytes themselves go upstream untouched.
import { nestsTooDeep, tooDeep } from "./json-depth";
import { RelayError } from "../errors";
import { topLevelMembers } from "./json-body";
import { checkRequestBody, requestModel } from "./request-rules";
import { findSensitiveWord, matcherFor } from "./sensitive";
import { estimateRequestPromptTokens, estimateTokensFromBytes, planJsonPromptTokens, type PromptPlan } from "../openai/token-count";
import type { RelayMode } from "../types";

/** Bodies of this size or more are read off the event loop. */
export const LARGE_BODY_BYTES = 128 * 1024;

/** A member whose value spans more bytes than this reaches the event loop as offsets, not parsed. */
const LAZY_MEMBER_BYTES = 16 * 1024;

/**
 * A body with more top-level members than this (no request has them; an attacker's 2 MB of
 * `"k1":1,"k2":1,…` does) reaches the event loop with only the members the relay reads by name
 * (NAMED_KEYS); the others arrive as one list of keys and offsets, looked into only when
 * something asks for a member by another name (bodyFromMembers).
 */
const MAX_LISTED_MEMBERS = 256;

/** The top-level members the relay and its adapters read by name. */
const NAMED_KEYS: ReadonlySet<string> = new Set([
  "model",
  "stream",
  "stream_options",
  "group",
  "messages",
  "prompt",
  "input",
  "n",
  "max_tokens",
  "max_completion_tokens",
  "size",
  "quality",
  "response_format",
  "temperature",
  "top_p",
  "top_k",
  "seed",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "raw",
]);

/** Bodies up to this size are estimated from their raw bytes; larger ones (images inlined as
 * base64, long documents) text by text, where the raw bytes would overstate them. */
export const BYTE_ESTIMATE_LIMIT = 16 * 1024;

const decoder = new TextDecoder();

/** The body as a JSON object; OpenAI's 400 when it is not one. */
export function parseJsonRequest(bytes: Uint8Array): Record<string, unknown> {
  if (nestsTooDeep(bytes)) throw tooDeep();
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new RelayError(400, "请求体不是合法的 JSON", { type: "invalid_request_error", code: "invalid_json" });
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw new RelayError(400, "请求体必须是 JSON 对象", { type: "invalid_request_error", code: "invalid_json" });
  }
  return json as Record<string, unknown>;
}

/**
 * Prompt tokens for the reservation. The reservation is settled against the upstream's usage, so
 * it only has to be a fair estimate: never the tokenizer, whose cost grows with the text (and the
 * worker's memory with its tables) while the request waits.
 */
export function reservePromptTokens(mode: RelayMode, json: Record<string, unknown>, bytes: Uint8Array, model: string): number {
  if (mode === "images" || mode === "transcriptions" || mode === "translations") return 0;
  if (mode === "speech" || bytes.length > BYTE_ESTIMATE_LIMIT) return estimateRequestPromptTokens(mode, json, model);
  return estimateTokensFromBytes(bytes);
}

/** A RelayError as data (it crosses threads). */
export interface RelayErrorData {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

const errorData = (e: RelayError): RelayErrorData => ({ status: e.status, message: e.message, type: e.type, code: e.code, param: e.param });

export const relayErrorOf = (d: RelayErrorData): RelayError =>
  new RelayError(d.status, d.message, { type: d.type, code: d.code, param: d.param });

/** A top-level member: its value, or where its value lies in the body (parsed only if read). */
export type BodyMember = { key: string; value: unknown } | { key: string; start: number; end: number };

export interface JsonBodySummary {
  model: string;
  /** checkRequestBody's 400: thrown where the event loop checks the rules (after authentication). */
  rulesError: RelayErrorData | null;
  /** reservePromptTokens of the body (0 when the rules refuse it). */
  reserveTokens: number;
  /** planJsonPromptTokens of the body (empty when the rules refuse it). */
  prompt: PromptPlan;
  /** The first sensitive word in the body's text (when it was asked to look), else null. */
  sensitiveWord: string | null;
  /** In the body's order; a repeated key once, at its first place, with its last value (as JSON.parse). */
  members: BodyMember[];
  /**
   * A body with more than MAX_LISTED_MEMBERS members: `members` holds those of NAMED_KEYS, and
   * these the others (`keys` a JSON array, `spans` their values' start and end offsets).
   */
  unlisted?: { keys: string; spans: Uint32Array };
}

/** A summary, or the 400 that parsing or reading the model gave. */
export type BodySummaryResult = { ok: true; summary: JsonBodySummary } | { ok: false; error: RelayErrorData };

/**
 * Everything the relay needs to know of a JSON body before it calls an upstream. Pure; any thread.
 * `sensitiveWords`: the SensitiveWords option when prompts are checked (sensitive.ts), else null.
 */
export function summariseJsonBody(
  bytes: Uint8Array,
  mode: RelayMode,
  defaultModel: string,
  sensitiveWords: string | null = null,
): BodySummaryResult {
  let json: Record<string, unknown>;
  let model: string;
  try {
    json = parseJsonRequest(bytes);
    model = requestModel(json, defaultModel);
  } catch (error) {
    if (error instanceof RelayError) return { ok: false, error: errorData(error) };
    throw error;
  }
  let rulesError: RelayErrorData | null = null;
  try {
    checkRequestBody(mode, json);
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    rulesError = errorData(error);
  }
  return {
    ok: true,
    summary: {
      model,
      rulesError,
      reserveTokens: rulesError ? 0 : reservePromptTokens(mode, json, bytes, model),
      prompt: rulesError ? { fixed: 0, texts: [] } : planJsonPromptTokens(mode, json, model),
      sensitiveWord: rulesError || sensitiveWords === null ? null : findSensitiveWord(json, matcherFor(sensitiveWords)),
      ...bodyMembers(json, bytes),
    },
  };
}

function bodyMembers(json: Record<string, unknown>, bytes: Uint8Array): Pick<JsonBodySummary, "members" | "unlisted"> {
  const scanned = topLevelMembers(bytes);
  // Parsed but not scanned (a byte order mark before the object): every member as a value.
  if (!scanned) return { members: Object.keys(json).map((key) => ({ key, value: json[key] })) };
  // As JSON.parse: a repeated key at its first place, with its last value.
  const order: (typeof scanned)[number][] = [];
  const place = new Map<string, number>();
  for (const m of scanned) {
    const i = place.get(m.key);
    if (i === undefined) {
      place.set(m.key, order.length);
      order.push(m);
    } else order[i] = m;
  }
  const member = (m: (typeof scanned)[number]): BodyMember =>
    m.valueEnd - m.valueStart > LAZY_MEMBER_BYTES
      ? { key: m.key, start: m.valueStart, end: m.valueEnd }
      : { key: m.key, value: json[m.key] };
  if (order.length <= MAX_LISTED_MEMBERS) return { members: order.map(member) };
  const members: BodyMember[] = [];
  const keys: string[] = [];
  const spans: number[] = [];
  for (const m of order) {
    if (NAMED_KEYS.has(m.key)) members.push(member(m));
    else {
      keys.push(m.key);
      spans.push(m.valueStart, m.valueEnd);
    }
  }
  return { members, unlisted: { keys: JSON.stringify(keys), spans: Uint32Array.from(spans) } };
}

/**
 * The body object the pipeline and the adapters read, from a summary: small members are plain
 * values; a large one is parsed from the body's bytes the first time it is read (on the event
 * loop: only adapters that rebuild the whole request read one). A body with unlisted members is a
 * proxy that looks a member up among them when it is asked for by a name outside NAMED_KEYS.
 */
export function bodyFromMembers(
  members: readonly BodyMember[],
  bytes: Uint8Array,
  unlisted?: JsonBodySummary["unlisted"],
): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const m of members) {
    if ("value" in m) setMember(json, m.key, m.value);
    else defineLazy(json, m.key, bytes, m.start, m.end);
  }
  if (!unlisted) return json;
  let index: Map<string, number> | null = null;
  /** Puts an unlisted member on the object (lazily parsed); false when there is none by that name. */
  const fetch = (key: string | symbol): boolean => {
    if (typeof key !== "string" || Object.hasOwn(json, key) || NAMED_KEYS.has(key)) return false;
    index ??= new Map((JSON.parse(unlisted.keys) as string[]).map((k, i) => [k, i]));
    const i = index.get(key);
    if (i === undefined) return false;
    defineLazy(json, key, bytes, unlisted.spans[2 * i]!, unlisted.spans[2 * i + 1]!);
    return true;
  };
  return new Proxy(json, {
    get: (target, key, receiver) => (fetch(key), Reflect.get(target, key, receiver)),
    has: (target, key) => fetch(key) || Reflect.has(target, key),
    getOwnPropertyDescriptor: (target, key) => (fetch(key), Reflect.getOwnPropertyDescriptor(target, key)),
    ownKeys(target) {
      for (const key of JSON.parse(unlisted.keys) as string[]) fetch(key);
      return Reflect.ownKeys(target);
    },
  });
}

function setMember(json: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(json, key, { value, writable: true, enumerable: true, configurable: true });
  else json[key] = value;
}

function defineLazy(json: Record<string, unknown>, key: string, bytes: Uint8Array, start: number, end: number): void {
  Object.defineProperty(json, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value: unknown = JSON.parse(decoder.decode(bytes.subarray(start, end)));
      Object.defineProperty(json, key, { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
  });
}
