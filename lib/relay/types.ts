// Transport-agnostic relay types: nothing here knows about HTTP servers, Prisma or Next.

/** What kind of request the client made; decides the upstream path and how usage is read. */
export type RelayMode =
  | "chat"
  | "completions"
  | "embeddings"
  | "moderations"
  | "images"
  | "speech"
  | "transcriptions"
  | "translations"
  | "rerank";

export const RELAY_MODES: readonly RelayMode[] = [
  "chat",
  "completions",
  "embeddings",
  "moderations",
  "images",
  "speech",
  "transcriptions",
  "translations",
  "rerank",
];

/** Channel type codes: the one table lives in lib/channels/catalog.ts. */
export { CHANNEL_TYPES as ChannelType } from "@/lib/channels/catalog";

/** Per-channel status rewrite, `{"400": 500}`: key is the upstream status as a decimal string. */
export type StatusCodeMapping = Readonly<Record<string, number>>;
/** Per-channel model rename, `{"requested": "upstream"}`. One hop, never chained. */
export type ModelMapping = Readonly<Record<string, string>>;

/**
 * Everything an adapter may know about a channel. Built once per channel from the DB row (see
 * `toChannelConfig` in ./channel.ts) and cached by the pipeline; adapters treat it as read-only.
 */
export interface ChannelConfig {
  id: number;
  type: number;
  name: string;
  /** Plaintext key (decrypted by the caller). One key per channel. */
  key: string;
  /** Upstream base URL without trailing slash; "" means the type's default. */
  base_url: string;
  /** Type-dependent: Azure api-version, Cloudflare account id, Qwen plugin header. */
  other: string;
  openai_organization: string;
  model_mapping: ModelMapping;
  status_code_mapping: StatusCodeMapping;
  /** Whether the auto-disable rules may disable this channel. */
  auto_ban: boolean;
}

/**
 * Token usage of one request, normalised across vendors.
 *
 * Invariants (enforced by `clampUsage` in lib/billing/price.ts):
 * - `prompt_tokens` counts ALL input tokens: uncached text, cache reads (`cached_tokens`), cache
 *   writes (`cache_write_tokens`) and audio input (`audio_input_tokens`). Vendors that report cache
 *   reads/writes separately from input (Anthropic) are summed into it by their adapter.
 * - `completion_tokens` counts ALL output tokens, including `reasoning_tokens` and
 *   `audio_output_tokens`.
 * - `total_tokens` = prompt_tokens + completion_tokens.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  audio_input_tokens: number;
  audio_output_tokens: number;
}

export function emptyUsage(): Usage {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    audio_input_tokens: 0,
    audio_output_tokens: 0,
  };
}

/** Prompt + completion with every detail field zero. */
export function simpleUsage(prompt: number, completion: number): Usage {
  const u = emptyUsage();
  u.prompt_tokens = prompt;
  u.completion_tokens = completion;
  u.total_tokens = prompt + completion;
  return u;
}
