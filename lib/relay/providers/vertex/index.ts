// Vertex AI (type 41). The key is a service-account JSON key (token.ts turns it into an access
// token); the region is the channel's `other`: a plain region ("us-central1", "global"), or a
// JSON map `{"default": "us-central1", "<model>": "<region>"}` as new-api reads it, with
// us-central1 when empty or when the map names neither the model nor a default. The host is
// `{region}-aiplatform.googleapis.com` (`aiplatform.googleapis.com` for "global"), or the
// channel's base URL when one is set (a private endpoint, a proxy, a test server).
//
// The publisher follows the model name, as in new-api:
// - "claude…" → Anthropic's `:rawPredict` / `:streamRawPredict`: the Messages body of
//   providers/anthropic without `model` (it is in the URL, where Vertex spells the version
//   "claude-3-5-sonnet@20240620") and with `anthropic_version: "vertex-2023-10-16"`; Anthropic's
//   answers and events come back;
// - "meta/…" or a name holding "llama" → the OpenAI-compatible `endpoints/openapi/chat/completions`;
// - anything else → Google's Gemini `:generateContent` / `:streamGenerateContent?alt=sse`; a caller
//   of Gemini's own API gets its request sent there as it came (`native.gemini`).
// Embeddings (text-embedding-004, text-multilingual-embedding-002, …): Google's `:predict` with
// `{instances: [{content}]}`, answered `predictions[].embeddings.{values, statistics.token_count}`
// → an OpenAI list (base64 on request) with the token counts summed as usage.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { parseVertexRegions } from "@/lib/channels/other";
import { RelayError } from "../../errors";
import type { RelayMode } from "../../types";
import { withPromptImages } from "../../request/images";
import { parseJsonObject } from "../../request/json-body";
import { anthropicResponseConverter, claudeRequest } from "../anthropic";
import { channelOutputLimit } from "../output-limit";
import type { Obj } from "@/lib/obj";
import { readPredict } from "./api";
import { embeddingList, embeddingTexts, jsonAnswer } from "../convert-shared";
import { geminiChatRequest, geminiPassthrough, modelSegment } from "../gemini";
import { errorOf } from "../gemini/convert-response";
import { buildBody, encodeModelForPath, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { cachedAccessToken, fetchAccessToken, parseServiceAccount, type ServiceAccount } from "./token";

const { name, other } = CHANNEL_CATALOG[CHANNEL_TYPES.VertexAI];
const DEFAULT_REGION = other.default;
const MODES: readonly RelayMode[] = ["chat", "embeddings"];
const supportedModes = new Set(MODES);

export type VertexPublisher = "google" | "anthropic" | "meta";

export function publisherOf(model: string): VertexPublisher {
  if (model.startsWith("claude")) return "anthropic";
  if (model.startsWith("meta/") || model.toLowerCase().includes("llama")) return "meta";
  return "google";
}

/**
 * The region for a model from the channel's `other` (plain or a JSON map). The region becomes part
 * of the host: an `other` that is not made of regions (saved before they were checked, or imported)
 * refuses the call before any URL is built, so the service account's token goes nowhere else.
 */
export function regionFor(other: string, model: string, channelId: number): string {
  const parsed = parseVertexRegions(other);
  if (!parsed) {
    throw new RelayError(
      500,
      `channel #${channelId} (${name}): "other" must be a region (global, or lowercase letters, digits and hyphens) or a JSON map of regions`,
      { code: "channel_misconfigured", local: false },
    );
  }
  const region = "region" in parsed ? parsed.region : (parsed.regions.get(model) ?? parsed.regions.get("default") ?? "");
  return region || DEFAULT_REGION;
}

/** Where a model's calls go: the host, and the project/location path under it. */
export interface VertexTarget {
  host: string;
  region: string;
  project: string;
}

export function targetOf(input: BuildRequestInput, sa: ServiceAccount): VertexTarget {
  const region = regionFor(input.channel.other, input.upstreamModel, input.channel.id);
  const custom = input.channel.base_url.trim().replace(/\/+$/, "");
  const host = custom || (region === "global" ? "https://aiplatform.googleapis.com" : `https://${region}-aiplatform.googleapis.com`);
  return { host, region, project: sa.project_id };
}

const locationPath = (t: VertexTarget) => `projects/${encodeURIComponent(t.project)}/locations/${encodeURIComponent(t.region)}`;

export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/**
 * Vertex's name of a Claude model: the date after "@" (claude-3-5-sonnet-20240620 →
 * claude-3-5-sonnet@20240620); the October 2024 Sonnet is "claude-3-5-sonnet-v2@20241022" there.
 * A name already holding "@" is Vertex's own.
 */
export function vertexClaudeModel(model: string): string {
  if (model.includes("@")) return model;
  if (model === "claude-3-5-sonnet-20241022") return "claude-3-5-sonnet-v2@20241022";
  return model.replace(/-(\d{8})$/, "@$1");
}

/** A Claude model's rawPredict URL (the Anthropic publisher). */
export function claudeModelUrl(t: VertexTarget, model: string, stream: boolean): string {
  return `${t.host}/v1/${locationPath(t)}/publishers/anthropic/models/${encodeModelForPath(vertexClaudeModel(model))}:${stream ? "streamRawPredict" : "rawPredict"}`;
}

function anthropicPublisher(input: BuildRequestInput, t: VertexTarget, token: string): UpstreamRequest | Promise<UpstreamRequest> {
  const url = claudeModelUrl(t, input.upstreamModel, input.stream);
  return withPromptImages(input, (canonical, images) => {
    // `model` goes in the URL; `metadata` is left out as on Bedrock (Vertex documents no such field).
    const { body: claude, dropped } = claudeRequest({ ...canonical, stream: input.stream }, input.upstreamModel, {
      images,
      outputLimit: channelOutputLimit(input.channel, input.upstreamModel),
    });
    const { model: _model, metadata: _metadata, ...rest } = claude;
    const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${token}` };
    if (input.stream) headers.Accept = "text/event-stream";
    return {
      method: "POST",
      url,
      headers,
      body: JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }),
      forcedIncludeUsage: input.stream,
      response: anthropicResponseConverter(input.upstreamModel),
      dropped,
    } satisfies UpstreamRequest;
  });
}

function metaPublisher(input: BuildRequestInput, t: VertexTarget, token: string): UpstreamRequest {
  const { body, forcedIncludeUsage } = buildBody(input, { policy: "passthrough" });
  const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${token}` };
  if (input.stream) headers.Accept = "text/event-stream";
  return {
    method: "POST",
    url: `${t.host}/v1beta1/${locationPath(t)}/endpoints/openapi/chat/completions`,
    headers,
    body,
    forcedIncludeUsage,
  };
}

function googlePublisher(input: BuildRequestInput, t: VertexTarget, token: string): UpstreamRequest | Promise<UpstreamRequest> {
  const modelUrl = `${t.host}/v1/${locationPath(t)}/publishers/google/models/${modelSegment(input.upstreamModel)}`;
  return geminiChatRequest(input, modelUrl, { Authorization: `Bearer ${token}` });
}

/** The embeddings `:predict` body: one instance per text; `dimensions` → `outputDimensionality`. */
export function toVertexPredict(json: Obj): Obj {
  const out: Obj = { instances: embeddingTexts(json.input).map((content) => ({ content })) };
  if (typeof json.dimensions === "number") out.parameters = { outputDimensionality: json.dimensions };
  return out;
}

/** `{predictions: [{embeddings: {values, statistics: {token_count}}}]}` → OpenAI's list. */
export function vertexPredictToOpenAI(upstream: unknown, model: string, base64: boolean): Obj {
  const error = errorOf(upstream);
  if (error) return error;
  let tokens = 0;
  const vectors = readPredict(upstream).predictions.map((p) => {
    const e = p?.embeddings;
    tokens += e?.statistics?.token_count ?? 0;
    return Array.isArray(e?.values) ? (e.values as number[]) : [];
  });
  return embeddingList(vectors, model, tokens, base64);
}

/** The embeddings body is checked before any token is fetched (a bad request costs no token call). */
function embeddingsBody(input: BuildRequestInput): string {
  return JSON.stringify(toVertexPredict(input.json ?? parseJsonObject(input.body)));
}

function embeddingsRequest(input: BuildRequestInput, t: VertexTarget, token: string, body: string): UpstreamRequest {
  const json = input.json ?? parseJsonObject(input.body);
  const base64 = json.encoding_format === "base64";
  return {
    method: "POST",
    url: `${t.host}/v1/${locationPath(t)}/publishers/google/models/${modelSegment(input.upstreamModel)}:predict`,
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body,
    forcedIncludeUsage: false,
    response: { json: (upstream) => jsonAnswer(vertexPredictToOpenAI(upstream, input.upstreamModel, base64)) },
  };
}

function requestWith(input: BuildRequestInput, t: VertexTarget, token: string): UpstreamRequest | Promise<UpstreamRequest> {
  switch (publisherOf(input.upstreamModel)) {
    case "anthropic":
      return anthropicPublisher(input, t, token);
    case "meta":
      return metaPublisher(input, t, token);
    default:
      return googlePublisher(input, t, token);
  }
}

export const vertex: ProviderAdapter = {
  supportedModes,
  buildRequest(input) {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const sa = parseServiceAccount(input.channel.key, input.channel.id);
    const target = targetOf(input, sa);
    const body = input.mode === "embeddings" ? embeddingsBody(input) : null;
    const build = (token: string) => (body === null ? requestWith(input, target, token) : embeddingsRequest(input, target, token, body));
    const token = cachedAccessToken(input.channel.id, input.channel.key);
    if (token) return build(token);
    return fetchAccessToken(input.channel.id, input.channel.key, sa).then(build);
  },
  native: {
    /** A Gemini caller on a Gemini model (the Google publisher): its request goes up as it came. */
    gemini(input) {
      if (publisherOf(input.upstreamModel) !== "google" || input.callerRoute?.variant !== undefined) return null;
      const sa = parseServiceAccount(input.channel.key, input.channel.id);
      const target = targetOf(input, sa);
      const modelUrl = `${target.host}/v1/${locationPath(target)}/publishers/google/models/${modelSegment(input.upstreamModel)}`;
      const build = (t: string) => geminiPassthrough(input, modelUrl, { Authorization: `Bearer ${t}` })!;
      const token = cachedAccessToken(input.channel.id, input.channel.key);
      return token ? build(token) : fetchAccessToken(input.channel.id, input.channel.key, sa).then(build);
    },
  },
};
