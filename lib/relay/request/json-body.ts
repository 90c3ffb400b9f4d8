// Minimal edits to a client's JSON body without re-serialising it.
//
// new-api re-marshalled every request through a typed struct, which dropped unknown fields and
// explicit zeros (`temperature: 0`). Here the client's bytes go upstream untouched except for the
// top-level members an edit actually changes: a single scan finds where each top-level member
// starts and ends, and changed values are spliced in. Everything else (nested objects, number
// spellings such as 1.0 or a seed beyond 2^53, key order, whitespace) is preserved byte for byte.
// Only when the body cannot be scanned (duplicate edited keys) does it fall back to one
// JSON.parse + one JSON.stringify, which keeps key order.
import { RelayError } from "../errors";

/** Edit value: remove the member. */
export const DELETE = Symbol("json-body.delete");
/** Returned by an edit function: leave the member as it is. */
export const KEEP = Symbol("json-body.keep");

/** Read access to the body's other top-level members from inside an edit function. */
export interface JsonBodyView {
  has(key: string): boolean;
  /** Parsed value of a top-level member (parses only that member's bytes). */
  get(key: string): unknown;
}

/**
 * A top-level edit: a JSON value to set (replaced in place, or appended when absent), `DELETE`,
 * or a function of the current value returning one of those or `KEEP`.
 */
export type JsonEdit = unknown | typeof DELETE | JsonEditFn;
/** Edit computed from the member's current value (`present` is false when absent). */
export type JsonEditFn = (current: unknown, present: boolean, body: JsonBodyView) => unknown;

export interface PatchResult<T extends string | Uint8Array> {
  /** The input itself when nothing changed, else new bytes. */
  body: T | Uint8Array;
  changed: boolean;
}

export interface Member {
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  valueStart: number;
  valueEnd: number;
}

interface Scan {
  members: Member[];
  byKey: Map<string, Member>;
  duplicates: Set<string>;
  /** Offset of the object's closing brace. */
  close: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Index just after the closing quote of the string whose opening quote is at `i`, or -1.
 * Short strings are walked byte by byte (cheaper than a native call); past 64 bytes the rest is
 * searched with Buffer#indexOf, which runs at memchr speed (a 1 MB base64 image in ~25 µs).
 */
function skipString(buf: Buffer, i: number): number {
  const n = buf.length;
  let j = i + 1;
  const lim = Math.min(n, j + 64);
  for (; j < lim; j++) {
    const c = buf[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  if (j >= n) return -1;
  // Bytes before j are fully consumed (j never points into an escape sequence).
  for (;;) {
    const q = buf.indexOf(QUOTE, j);
    if (q < 0) return -1;
    let bs = 0;
    for (let k = q - 1; k >= j && buf[k] === BACKSLASH; k--) bs++;
    if ((bs & 1) === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just after the JSON value starting at `i` (structure only, no validation), or -1. */
function skipValue(buf: Buffer, i: number): number {
  const n = buf.length;
  const c = buf[i];
  if (c === QUOTE) return skipString(buf, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < n; j++) {
      const d = buf[j];
      if (d === QUOTE) {
        j = skipString(buf, j);
        if (j < 0) return -1;
        j--;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // number, true, false, null
  let j = i;
  while (j < n) {
    const d = buf[j];
    if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function decodeKey(buf: Buffer, start: number, end: number): string {
  // start/end include the quotes
  for (let k = start + 1; k < end - 1; k++) {
    if (buf[k] === BACKSLASH) return JSON.parse(decoder.decode(buf.subarray(start, end))) as string;
  }
  return decoder.decode(buf.subarray(start + 1, end - 1));
}

/** Where each top-level member of a JSON object lies (byte offsets); null when it is not a plain object. */
export function topLevelMembers(raw: Uint8Array): readonly Readonly<Member>[] | null {
  return scanTopLevel(toBuffer(raw))?.members ?? null;
}

/** Locate the top-level members of a JSON object. Null when the text is not a well-formed object. */
function scanTopLevel(buf: Buffer): Scan | null {
  const n = buf.length;
  let i = 0;
  while (i < n && isWs(buf[i])) i++;
  if (buf[i] !== 0x7b) return null;
  i++;
  const members: Member[] = [];
  const byKey = new Map<string, Member>();
  const duplicates = new Set<string>();
  for (;;) {
    while (i < n && isWs(buf[i])) i++;
    if (buf[i] === 0x7d && members.length === 0) break;
    if (buf[i] !== QUOTE) return null;
    const start = i;
    const keyEnd = skipString(buf, i);
    if (keyEnd < 0) return null;
    const key = decodeKey(buf, start, keyEnd);
    i = keyEnd;
    while (i < n && isWs(buf[i])) i++;
    if (buf[i] !== 0x3a) return null;
    i++;
    while (i < n && isWs(buf[i])) i++;
    const valueStart = i;
    const valueEnd = skipValue(buf, i);
    if (valueEnd < 0) return null;
    const m: Member = { key, start, valueStart, valueEnd };
    if (byKey.has(key)) duplicates.add(key);
    byKey.set(key, m);
    members.push(m);
    i = valueEnd;
    while (i < n && isWs(buf[i])) i++;
    if (buf[i] === 0x2c) {
      i++;
      continue;
    }
    if (buf[i] === 0x7d) break;
    return null;
  }
  const close = i;
  for (i = close + 1; i < n; i++) if (!isWs(buf[i])) return null;
  return { members, byKey, duplicates, close };
}

function invalidJson(): RelayError {
  return new RelayError(400, "request body is not valid JSON", { type: "invalid_request_error", code: "invalid_json" });
}

/** A Buffer view of the body (no copy for byte input): Buffer#indexOf is the fast search. */
function toBuffer(raw: string | Uint8Array): Buffer {
  if (typeof raw === "string") return Buffer.from(raw, "utf8");
  return Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
}

const COMMA = new Uint8Array([0x2c]);

export interface PatchOptions {
  /**
   * The body already parsed by the caller (the pipeline parses it once for model, stream,
   * messages…). With it, edits that change nothing are detected without scanning the bytes, and
   * edits that only add absent members are appended before the closing brace without a scan.
   */
  parsed?: Readonly<Record<string, unknown>>;
}

type Plan = { kind: "none" } | { kind: "append"; members: string[] } | { kind: "scan" };

/** Decide from the parsed body whether the edits change anything, and whether appending suffices. */
function planFromParsed(parsed: Readonly<Record<string, unknown>>, edits: Readonly<Record<string, JsonEdit>>): Plan {
  const has = (k: string) => Object.hasOwn(parsed, k);
  const view: JsonBodyView = { has, get: (k) => (has(k) ? parsed[k] : undefined) };
  const appends: string[] = [];
  for (const key of Object.keys(edits)) {
    const present = has(key);
    let edit = edits[key];
    if (typeof edit === "function") {
      edit = (edit as JsonEditFn)(present ? parsed[key] : undefined, present, view);
      if (edit === KEEP) continue;
    }
    if (edit === DELETE || edit === undefined) {
      if (present) return { kind: "scan" };
      continue;
    }
    const text = JSON.stringify(edit);
    if (text === undefined) throw new TypeError(`patchJsonBody: value for "${key}" is not JSON-serialisable`);
    if (present) {
      if (JSON.stringify(parsed[key]) !== text) return { kind: "scan" };
      continue;
    }
    appends.push(`${JSON.stringify(key)}:${text}`);
  }
  return appends.length === 0 ? { kind: "none" } : { kind: "append", members: appends };
}

/**
 * Insert members before the closing brace (the parsed body proved them absent). What precedes the
 * brace tells whether the object has members: its opening brace when it has none.
 */
function appendMembers(buf: Buffer, members: string[]): Uint8Array | null {
  let end = buf.length - 1;
  while (end >= 0 && isWs(buf[end])) end--;
  if (end < 0 || buf[end] !== 0x7d) return null;
  let before = end - 1;
  while (before >= 0 && isWs(buf[before])) before--;
  const nonEmpty = before >= 0 && buf[before] !== 0x7b;
  return Buffer.concat([buf.subarray(0, before + 1), encoder.encode((nonEmpty ? "," : "") + members.join(",")), buf.subarray(before + 1)]);
}

/**
 * Apply top-level edits to a JSON object body. Returns the input unchanged (same reference,
 * `changed: false`) when no edit changes anything; setting a member to the value it already has
 * is not a change. Throws a 400 `RelayError` when the body is not a JSON object.
 */
export function patchJsonBody<T extends string | Uint8Array>(
  raw: T,
  edits: Readonly<Record<string, JsonEdit>>,
  options: PatchOptions = {},
): PatchResult<T> {
  const keys = Object.keys(edits);
  if (keys.length === 0) return { body: raw, changed: false };
  if (options.parsed) {
    const plan = planFromParsed(options.parsed, edits);
    if (plan.kind === "none") return { body: raw, changed: false };
    if (plan.kind === "append") {
      const out = appendMembers(toBuffer(raw), plan.members);
      if (out) return { body: out, changed: true };
    }
  }
  const buf = toBuffer(raw);
  const scan = scanTopLevel(buf);
  if (!scan) {
    // Not a plain well-formed object: let JSON.parse decide (and report) what is wrong.
    return slowPatch(raw, buf, edits);
  }
  for (const k of keys) if (scan.duplicates.has(k)) return slowPatch(raw, buf, edits);

  const parsedCache = new Map<string, unknown>();
  const view: JsonBodyView = {
    has: (key) => scan.byKey.has(key),
    get: (key) => {
      const m = scan.byKey.get(key);
      if (!m) return undefined;
      if (!parsedCache.has(key)) parsedCache.set(key, JSON.parse(decoder.decode(buf.subarray(m.valueStart, m.valueEnd))));
      return parsedCache.get(key);
    },
  };

  const replaced = new Map<Member, string>();
  const appended: string[] = [];
  const deleted = new Set<Member>();
  for (const key of keys) {
    let edit = edits[key];
    const m = scan.byKey.get(key);
    if (typeof edit === "function") {
      edit = (edit as JsonEditFn)(m ? view.get(key) : undefined, m !== undefined, view);
      if (edit === KEEP) continue;
    }
    if (edit === DELETE || edit === undefined) {
      if (m) deleted.add(m);
      continue;
    }
    const text = JSON.stringify(edit);
    if (text === undefined) throw new TypeError(`patchJsonBody: value for "${key}" is not JSON-serialisable`);
    if (m) {
      if (m.valueEnd - m.valueStart === text.length && decoder.decode(buf.subarray(m.valueStart, m.valueEnd)) === text) continue;
      replaced.set(m, text);
    } else {
      appended.push(`${JSON.stringify(key)}:${text}`);
    }
  }
  if (replaced.size === 0 && deleted.size === 0 && appended.length === 0) return { body: raw, changed: false };
  return { body: rebuild(buf, scan, replaced, deleted, appended), changed: true };
}

/**
 * Re-emit the object member by member: untouched members and the separators between two kept
 * neighbours are copied byte for byte; a deletion joins its neighbours with a plain comma.
 */
function rebuild(buf: Buffer, scan: Scan, replaced: Map<Member, string>, deleted: Set<Member>, appended: string[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const ms = scan.members;
  const first = ms[0];
  const last = ms[ms.length - 1];
  parts.push(buf.subarray(0, first ? first.start : scan.close));
  let kept = 0;
  for (let idx = 0; idx < ms.length; idx++) {
    const m = ms[idx];
    if (deleted.has(m)) continue;
    if (kept > 0) {
      const prev = ms[idx - 1];
      parts.push(deleted.has(prev) ? COMMA : buf.subarray(prev.valueEnd, m.start));
    }
    const text = replaced.get(m);
    if (text === undefined) parts.push(buf.subarray(m.start, m.valueEnd));
    else {
      parts.push(buf.subarray(m.start, m.valueStart));
      parts.push(encoder.encode(text));
    }
    kept++;
  }
  if (appended.length > 0) parts.push(encoder.encode((kept > 0 ? "," : "") + appended.join(",")));
  parts.push(buf.subarray(last ? last.valueEnd : scan.close));
  return Buffer.concat(parts);
}

function slowPatch<T extends string | Uint8Array>(raw: T, buf: Uint8Array, edits: Readonly<Record<string, JsonEdit>>): PatchResult<T> {
  let obj: unknown;
  try {
    obj = JSON.parse(typeof raw === "string" ? raw : decoder.decode(buf));
  } catch {
    throw invalidJson();
  }
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw invalidJson();
  const o = obj as Record<string, unknown>;
  const view: JsonBodyView = { has: (k) => Object.hasOwn(o, k), get: (k) => o[k] };
  let changed = false;
  for (const key of Object.keys(edits)) {
    let edit = edits[key];
    const present = Object.hasOwn(o, key);
    if (typeof edit === "function") {
      edit = (edit as JsonEditFn)(o[key], present, view);
      if (edit === KEEP) continue;
    }
    if (edit === DELETE || edit === undefined) {
      if (present) {
        delete o[key];
        changed = true;
      }
      continue;
    }
    if (present && JSON.stringify(o[key]) === JSON.stringify(edit)) continue;
    o[key] = edit;
    changed = true;
  }
  if (!changed) return { body: raw, changed: false };
  return { body: encoder.encode(JSON.stringify(o)), changed: true };
}

/** Parse a JSON object body once (the pipeline needs model, stream, messages…). 400 on failure. */
export function parseJsonObject(raw: string | Uint8Array): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(typeof raw === "string" ? raw : decoder.decode(raw));
  } catch {
    throw invalidJson();
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw invalidJson();
  return v as Record<string, unknown>;
}
