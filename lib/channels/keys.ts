// The keys of a channel: one key as always, or, with multi_key_mode "random" or "polling", one per
// line (a list of service-account JSON credentials for Vertex AI). Each key's state and usage live
// in channel_keys, found by the key's SHA-256 (key-hash.ts), so editing the lines keeps every other key's row.
// Pure and client-safe (the editor and the schemas use it); the hash is lib/channels/key-hash.ts.
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import { splitKeyLines } from "@/lib/channels/fields";

/** new-api's multi_key_mode values; "" = the key field is one key. */
export const MULTI_KEY_MODES = ["", "random", "polling"] as const;
export type MultiKeyMode = (typeof MULTI_KEY_MODES)[number];

export const isMultiKeyMode = (mode: string): mode is "random" | "polling" => mode === "random" || mode === "polling";

/** A channel_keys row's status (new-api's numbers). */
export const CHANNEL_KEY_STATUS = { enabled: 1, manuallyDisabled: 2, autoDisabled: 3 } as const;

/**
 * The channel's keys in order. Mode "" → the text as one key, exactly as the relay always read it
 * (a Vertex JSON, an `ak|sk|region`). A multi-key mode → one key per non-blank line, trimmed,
 * repeats dropped; for Vertex, a JSON array of credential objects or one object per line.
 */
export function splitChannelKeys(type: number, keyText: string, mode: string): string[] {
  if (!isMultiKeyMode(mode)) return [keyText];
  const keys = type === CHANNEL_TYPES.VertexAI ? splitVertexKeys(keyText) : splitKeyLines(keyText);
  return [...new Set(keys)];
}

/** Vertex credentials: a JSON array of objects (each re-serialised on one line), else one JSON object per line. */
function splitVertexKeys(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const list: unknown = JSON.parse(trimmed);
      if (Array.isArray(list)) return list.filter((o) => o && typeof o === "object" && !Array.isArray(o)).map((o) => JSON.stringify(o));
    } catch {
      // Not one array: read it line by line below.
    }
  }
  return splitKeyLines(text);
}

/**
 * A key as the console shows it: a few characters at each end, never most of it (a Vertex
 * credential by its client_email). Short keys show only their length.
 */
export function maskKey(key: string): string {
  if (key.startsWith("{")) {
    try {
      const email = (JSON.parse(key) as { client_email?: unknown }).client_email;
      if (typeof email === "string") return `${email} (JSON)`;
    } catch {
      // Not JSON after all: masked as text.
    }
  }
  if (key.length < 12) return `****（${key.length} 个字符）`;
  // At most a quarter at the head and an eighth at the tail: never most of a short key.
  const head = Math.min(6, Math.floor(key.length / 4));
  const tail = Math.min(4, Math.floor(key.length / 8));
  return `${key.slice(0, head)}…${key.slice(-tail)}`;
}

/** Joins keys back into a channel's key field (Vertex: a JSON array, as splitChannelKeys reads it). */
export function joinChannelKeys(type: number, keys: readonly string[]): string {
  if (type === CHANNEL_TYPES.VertexAI) return `[${keys.join(",")}]`;
  return keys.join("\n");
}
