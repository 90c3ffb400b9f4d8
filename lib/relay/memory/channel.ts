// Turning a channel's stored text fields into the parsed ChannelConfig adapters use. Pure.
import type { ChannelConfig, ModelMapping, OutputLimits, StatusCodeMapping } from "../types";

/** The channel columns `toChannelConfig` reads (the DB row with its key already decrypted). */
export interface ChannelRowLike {
  id: number;
  type: number;
  name?: string | null;
  key: string;
  base_url?: string | null;
  other?: string | null;
  openai_organization?: string | null;
  model_mapping?: string | null;
  status_code_mapping?: string | null;
  output_limits?: string | null;
  auto_ban?: number | boolean | null;
}

function parseObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  const trimmed = text.trim();
  if (trimmed === "" || trimmed === "{}") return null;
  try {
    const v: unknown = JSON.parse(trimmed);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/**
 * `{"requested":"upstream"}`. Entries whose value is not a non-empty string are dropped, and so
 * is the whole mapping when the text is not a JSON object (the console validates on save; a bad
 * value here must not take the channel down).
 */
export function parseModelMapping(text: string | null | undefined): ModelMapping {
  const obj = parseObject(text);
  if (!obj) return EMPTY;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === "string" && v.trim() !== "" && k !== "") out[k] = v.trim();
  }
  return Object.freeze(out);
}

/**
 * `{"400":"500"}` or `{"400":500}`. Keys and values must be HTTP statuses 100–599; targets below
 * 400 are dropped because an error must stay an error (mapping only ever applies to errors).
 */
export function parseStatusCodeMapping(text: string | null | undefined): StatusCodeMapping {
  const obj = parseObject(text);
  if (!obj) return EMPTY;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(obj)) {
    const from = Number(k);
    const to = typeof v === "number" ? v : typeof v === "string" ? Number(v.trim()) : NaN;
    if (!Number.isInteger(from) || from < 100 || from > 599) continue;
    if (!Number.isInteger(to) || to < 400 || to > 599) continue;
    out[String(from)] = to;
  }
  return Object.freeze(out);
}

/**
 * `{"gpt-4o": 4096, "*": 8192}`: output token limits per upstream model. Entries whose value is
 * not a positive integer (or a string of one) are dropped, like a bad mapping.
 */
export function parseOutputLimits(text: string | null | undefined): OutputLimits {
  const obj = parseObject(text);
  if (!obj) return EMPTY;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(obj)) {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v.trim()) : NaN;
    if (k.trim() !== "" && Number.isSafeInteger(n) && n > 0) out[k.trim()] = n;
  }
  return Object.freeze(out);
}

export function toChannelConfig(row: ChannelRowLike): ChannelConfig {
  return {
    id: row.id,
    type: row.type,
    name: row.name ?? "",
    key: row.key,
    base_url: (row.base_url ?? "").trim().replace(/\/+$/, ""),
    other: (row.other ?? "").trim(),
    openai_organization: (row.openai_organization ?? "").trim(),
    model_mapping: parseModelMapping(row.model_mapping),
    status_code_mapping: parseStatusCodeMapping(row.status_code_mapping),
    output_limits: parseOutputLimits(row.output_limits),
    auto_ban: row.auto_ban === undefined || row.auto_ban === null ? true : Boolean(row.auto_ban),
  };
}

/** The model name sent upstream: the channel's mapping applied once (no chains), else unchanged. */
export function resolveUpstreamModel(channel: Pick<ChannelConfig, "model_mapping">, requestModel: string): string {
  // Own keys only: a model called `constructor` is not mapped to Object.prototype's.
  return Object.hasOwn(channel.model_mapping, requestModel) ? channel.model_mapping[requestModel]! : requestModel;
}
