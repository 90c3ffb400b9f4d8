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
/** Per-channel output limits, `{"upstream model": max output tokens}`; `"*"` for every other model. */
export type OutputLimits = Readonly<Record<string, number>>;

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
  /**
   * The channel's own output limits, over the model facts of lib/billing/output-limits.ts (a
   * deployment with a smaller limit, a vendor that allows more): see providers/output-limit.ts.
   */
  output_limits?: OutputLimits;
  /** Whether the auto-disable rules may disable this channel. */
  auto_ban: boolean;
}
