// Pure helpers for the text-encoded columns of a channel: comma lists, JSON string maps, base URLs,
// the per-type default of `other` and the status note kept in `other_info`.
import { channelTypeInfo } from "@/lib/channels/catalog";

/** "a, b,,a" or ["a", " b"] → ["a", "b"]: trimmed, empties dropped, first occurrence kept. */
export function splitList(value: string | readonly string[] | null | undefined): string[] {
  const items = typeof value === "string" ? value.split(",") : (value ?? []);
  const seen = new Set<string>();
  for (const item of items) {
    const v = String(item).trim();
    if (v) seen.add(v);
  }
  return [...seen];
}

export const joinList = (value: string | readonly string[] | null | undefined) => splitList(value).join(",");

/** The non-empty lines of a batch key field, trimmed. */
export const splitKeyLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * A JSON object whose every entry passes `accept`, as a plain record ("" or blank text is the empty
 * map), or null when the text is not such an object.
 */
function parseJsonMap<V>(text: string | null | undefined, accept: (key: string, value: unknown) => value is V): Record<string, V> | null {
  const raw = (text ?? "").trim();
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const out: Record<string, V> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (!accept(k, v)) return null;
    out[k] = v;
  }
  return out;
}

/**
 * A JSON object of output limits, model name → a positive whole number of tokens ("" means none),
 * or null when it is not one.
 */
export const parseLimitMap = (text: string | null | undefined): Record<string, number> | null =>
  parseJsonMap(text, (k, v): v is number => k.trim() !== "" && typeof v === "number" && Number.isSafeInteger(v) && v > 0);

/** A JSON object whose values are all strings ("" means no mapping), or null when it is not one. */
export const parseStringMap = (text: string | null | undefined): Record<string, string> | null =>
  parseJsonMap(text, (_k, v): v is string => typeof v === "string");

export const trimTrailingSlashes = (url: string) => url.trim().replace(/\/+$/, "");

/** The channel's base URL, or its type's default when empty, without trailing slashes. */
export function channelBaseUrl(type: number, base_url: string): string {
  return trimTrailingSlashes(base_url || channelTypeInfo(type)?.baseUrl || "");
}

/** An empty `other` takes the type's default: API version (Azure, Spark) or region (Vertex). */
export const defaultOtherFor = (type: number, other: string) => other.trim() || channelTypeInfo(type)?.other?.default || "";

export type ChannelStatusNote = { status_reason?: string; status_time?: number; [key: string]: unknown };

export function parseOtherInfo(text: string | null | undefined): ChannelStatusNote {
  try {
    const v = JSON.parse(text || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as ChannelStatusNote) : {};
  } catch {
    return {};
  }
}

/** A channel's status column: enabled, disabled by an admin, or disabled by the relay after failures. */
export const CHANNEL_STATUS = { enabled: 1, manuallyDisabled: 2, autoDisabled: 3 } as const;

/**
 * other_info after a status change: enabling clears the reason and time; disabling records them
 * (a manual disable without a reason leaves the note as it was).
 */
export function otherInfoForStatus(current: string, status: number, reason: string | undefined, now: number): string {
  const info = parseOtherInfo(current);
  if (status === CHANNEL_STATUS.enabled) {
    delete info.status_reason;
    delete info.status_time;
  } else if (reason !== undefined) {
    info.status_reason = reason;
    info.status_time = now;
  } else {
    return current;
  }
  return Object.keys(info).length ? JSON.stringify(info) : "";
}
