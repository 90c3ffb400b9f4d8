// How deep a caller's JSON may nest. JSON.parse reads any depth, but JSON.stringify, structured
// clone (the body thread's messages) and every recursive walk of a body (schemas, content parts)
// overflow the call stack somewhere past a few thousand levels: a body nested `[[[[…]]]]` 20 000
// deep would answer 500, after being sent upstream. It is refused first, as the client's 400.
import { RelayError } from "../errors";

/** Deepest nesting of arrays and objects a relay body (or a JSON text inside one) may have. */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON bytes open more than MAX_JSON_DEPTH arrays and objects at once. One pass, strings
 * skipped, nothing allocated; fewer bytes than the limit cannot nest that deep and are not read.
 * Malformed text is left to JSON.parse to refuse.
 */
export function nestsTooDeep(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (n <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      for (i++; i < n && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** nestsTooDeep for JSON held in a string (a tool call's `arguments`): the same code units. */
export function textNestsTooDeep(text: string): boolean {
  const n = text.length;
  if (n <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The 400 for a body (or a JSON text in it) nested deeper than MAX_JSON_DEPTH. */
export function tooDeep(what = "请求体"): RelayError {
  return new RelayError(400, `${what}的 JSON 嵌套过深（不能超过 ${MAX_JSON_DEPTH} 层）`, {
    type: "invalid_request_error",
    code: "invalid_json",
  });
}
