// What a channel's `other` may hold where the relay builds the upstream address from it. Only the
// base URL may choose the host: a Vertex AI region is pasted into the host name
// (`{region}-aiplatform.googleapis.com`), so `attacker.example/x?` would send the access token
// minted from the channel's service account to attacker.example. Each such field has one shape,
// checked when a channel is saved (lib/channels/schemas, lib/channels/manage, the editor) and again
// by its adapter before any URL is built (a row imported from elsewhere is not trusted either).
//
// Some of these fields also decide whose account the requests reach (the Vertex region's host, the
// Cloudflare account): changing them moves the channel (lib/channels/address).
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import { defaultOtherFor } from "@/lib/channels/fields";

export const OTHER_MSG = {
  vertexRegion: (region: string) => `部署地区「${region}」不合法：只能是 global，或由小写字母、数字和连字符组成（例如 us-central1）`,
  vertexRegionMap: '部署地区的 JSON 应为一个对象，每个值都是地区，例如 {"default": "us-central1", "模型": "地区"}',
  cloudflareAccount: "Account ID 只能由字母、数字、下划线和连字符组成",
  geminiVersion: "API 版本应为 v 加数字，可带小写字母，例如 v1beta、v1",
  azureVersion: "API 版本只能由字母、数字、点和连字符组成，例如 2024-10-21",
} as const;

/** "global", or a region name such as us-central1 or europe-west4. */
const VERTEX_REGION_RE = /^[a-z0-9-]+$/;
export const isVertexRegion = (region: string) => region === "global" || VERTEX_REGION_RE.test(region);

/**
 * A Vertex `other`: one region, or `{"default": region, "<model>": region}`; empty is the default
 * region. Null when it is not one of these.
 */
export function parseVertexRegions(other: string): { regions: Map<string, string> } | { region: string } | null {
  const text = other.trim();
  if (!text.startsWith("{")) return text === "" || isVertexRegion(text) ? { region: text } : null;
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    return null;
  }
  if (!map || typeof map !== "object" || Array.isArray(map)) return null;
  // A Map: a model named "constructor" must not find Object's.
  const regions = new Map<string, string>();
  for (const [model, region] of Object.entries(map)) {
    if (typeof region !== "string" || !isVertexRegion(region.trim())) return null;
    regions.set(model, region.trim());
  }
  return { regions };
}

function vertexProblem(other: string): string | null {
  if (parseVertexRegions(other)) return null;
  const text = other.trim();
  if (!text.startsWith("{")) return OTHER_MSG.vertexRegion(text);
  try {
    const map: unknown = JSON.parse(text);
    if (map && typeof map === "object" && !Array.isArray(map)) {
      const bad = Object.values(map).find((r) => typeof r === "string" && !isVertexRegion(r.trim()));
      if (typeof bad === "string") return OTHER_MSG.vertexRegion(bad);
    }
  } catch {
    // not JSON: the map's own message
  }
  return OTHER_MSG.vertexRegionMap;
}

const shaped = (re: RegExp, message: string) => (other: string) => (other.trim() === "" || re.test(other.trim()) ? null : message);

/** The field's rule per type, and whether a change of it moves the channel (see the top). */
const OTHER_RULES: Partial<Record<number, { problem: (other: string) => string | null; moves: boolean }>> = {
  [CHANNEL_TYPES.VertexAI]: { problem: vertexProblem, moves: true },
  // A path segment naming the account (`/client/v4/accounts/{id}/ai`); "." and ".." would climb out of it.
  [CHANNEL_TYPES.Cloudflare]: { problem: shaped(/^[A-Za-z0-9_-]+$/, OTHER_MSG.cloudflareAccount), moves: true },
  // Pasted into the path as it is (`{base}/{version}/models/…`).
  [CHANNEL_TYPES.Gemini]: { problem: shaped(/^v\d+[a-z0-9]*$/, OTHER_MSG.geminiVersion), moves: false },
  // The api-version query value: encoded, but of one shape all the same (2024-10-21, 2025-01-01-preview, latest).
  [CHANNEL_TYPES.Azure]: { problem: shaped(/^[A-Za-z0-9][A-Za-z0-9.-]*$/, OTHER_MSG.azureVersion), moves: false },
};

/** Why `other` cannot serve a channel of this type, or null when it can (types without a rule take anything). */
export const channelOtherProblem = (type: number, other: string): string | null => OTHER_RULES[type]?.problem(other) ?? null;

/** Whether a change of this type's `other` moves the channel: it decides the host or the account. */
export const otherMovesChannel = (type: number): boolean => OTHER_RULES[type]?.moves ?? false;

/** Whether a save changes the `other` that shapes the address of a channel keeping its type (see the top). */
export const changesAddressOther = (from: { type: number; other: string }, to: { type: number; other: string }) =>
  from.type === to.type && otherMovesChannel(to.type) && defaultOtherFor(from.type, from.other) !== defaultOtherFor(to.type, to.other);
