// The one registry of channel types → how the relay serves them. Every type of the catalogue
// (lib/channels/catalog.ts, which holds the vendor facts: names, default base URLs, default models)
// has exactly one entry: an adapter, or an explicit "not relayed" entry whose reason is shown when
// such a channel is created, tested or routed to. `satisfies Record<ChannelType, …>` makes a type
// without an entry a compile error.
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES, CHANNEL_TYPES as T, type ChannelType } from "@/lib/channels/catalog";
import { aiproxyLibrary } from "./aiproxy-library";
import { anthropic } from "./anthropic";
import { azure } from "./azure";
import { baidu } from "./baidu";
import { bedrock } from "./bedrock";
import { cloudflare } from "./cloudflare";
import { cohere } from "./cohere";
import { custom } from "./custom";
import { dify } from "./dify";
import { gemini } from "./gemini";
import { palm } from "./palm";
import { spark } from "./spark";
import { hunyuan } from "./tencent";
import type { ProviderAdapter } from "./types";
import { zhipuV3, zhipuV4 } from "./zhipu";
import { ai360, deepseek, fastgpt, jina, minimax, mistral, moonshot, ollama, openai, qwen, siliconflow, xai, yi } from "./vendors";
import { vertex } from "./vertex";

/** A channel type the relay does not serve yet: channels of it cannot be created, tested or routed to. */
export type NotRelayed = { readonly notRelayed: string };
/**
 * A channel type that runs tasks only (lib/tasks: Midjourney, Suno): its channels are created and
 * routed to like any other, but only the task routes it names use them; chat calls and the
 * channel test refuse them.
 */
export type TasksOnly = { readonly tasksOnly: string };
export type RegistryEntry = ProviderAdapter | NotRelayed | TasksOnly;

const tasksOnly = (routes: string): TasksOnly => ({ tasksOnly: routes });

export const CHANNEL_REGISTRY = {
  [T.OpenAI]: openai,
  [T.Midjourney]: tasksOnly("Midjourney 任务接口（/mj）"),
  [T.Azure]: azure,
  [T.Ollama]: ollama,
  [T.MidjourneyPlus]: tasksOnly("Midjourney 任务接口（/mj）"),
  [T.Custom]: custom,
  [T.PaLM]: palm,
  [T.Anthropic]: anthropic,
  [T.Baidu]: baidu,
  [T.Zhipu]: zhipuV3,
  [T.Ali]: qwen,
  [T.Xunfei]: spark,
  [T.AI360]: ai360,
  [T.AIProxyLibrary]: aiproxyLibrary,
  [T.FastGPT]: fastgpt,
  [T.Tencent]: hunyuan,
  [T.Gemini]: gemini,
  [T.Moonshot]: moonshot,
  [T.ZhipuV4]: zhipuV4,
  [T.Yi]: yi,
  [T.AWS]: bedrock,
  [T.Cohere]: cohere,
  [T.MiniMax]: minimax,
  [T.Suno]: tasksOnly("Suno 任务接口（/suno）"),
  [T.Dify]: dify,
  [T.Jina]: jina,
  [T.Cloudflare]: cloudflare,
  [T.SiliconFlow]: siliconflow,
  [T.VertexAI]: vertex,
  [T.Mistral]: mistral,
  [T.DeepSeek]: deepseek,
  [T.XAI]: xai,
} as const satisfies Record<ChannelType, RegistryEntry>;

const isAdapter = (e: RegistryEntry): e is ProviderAdapter => !("notRelayed" in e) && !("tasksOnly" in e);

const entryOf = (type: number): RegistryEntry | undefined => (CHANNEL_REGISTRY as Record<number, RegistryEntry | undefined>)[type];

/** Whether channels of this type run tasks only (Midjourney, Suno). */
export function isTasksOnlyType(type: number): boolean {
  const entry = entryOf(type);
  return !!entry && "tasksOnly" in entry;
}

/**
 * The types whose upstream speaks OpenAI's protocol: the client's body goes up nearly as sent
 * (openai-compatible.ts). The others convert the canonical request into their vendor's.
 */
export const OPENAI_PROTOCOL_TYPES: ReadonlySet<ChannelType> = new Set([
  T.OpenAI,
  T.Azure,
  T.Ollama,
  T.Custom,
  T.Ali,
  T.AI360,
  T.FastGPT,
  T.Moonshot,
  T.Yi,
  T.MiniMax,
  T.Jina,
  T.Cloudflare,
  T.SiliconFlow,
  T.Mistral,
  T.DeepSeek,
  T.XAI,
]);

/** The types the relay serves, in catalogue order. */
export const RELAYED_TYPES: readonly ChannelType[] = CHANNEL_TYPE_CODES.filter((t) => isAdapter(CHANNEL_REGISTRY[t]));

// Dense array indexed by type: the hot path's lookup is one bounds-checked element load.
const MAX_TYPE = Math.max(...CHANNEL_TYPE_CODES);
const ADAPTERS: (ProviderAdapter | undefined)[] = Array.from({ length: MAX_TYPE + 1 }, (_, t) => {
  const entry = (CHANNEL_REGISTRY as Record<number, RegistryEntry | undefined>)[t];
  return entry && isAdapter(entry) ? entry : undefined;
});

/** The adapter for a channel type; undefined for a type that is not relayed or not in the catalogue. */
export function getProvider(type: number): ProviderAdapter | undefined {
  return ADAPTERS[type];
}

/** Why a chat-style call (or the channel test) cannot use channels of this type, or null when it relays. */
export function relayRefusal(type: number): string | null {
  if (getProvider(type)) return null;
  const entry = entryOf(type);
  if (!entry || isAdapter(entry)) return "未知的渠道类型";
  const name = CHANNEL_CATALOG[type as ChannelType].name;
  if ("tasksOnly" in entry) return `渠道类型「${name}」只用于${entry.tasksOnly}`;
  return `渠道类型「${name}」暂不可用：${entry.notRelayed}`;
}

/** Why channels of this type cannot be created, or null: every type the relay or a task platform serves. */
export function channelTypeRefusal(type: number): string | null {
  return isTasksOnlyType(type) ? null : relayRefusal(type);
}

/** type → reason, for every type that is not relayed (the console's channel editor disables them). */
export function notRelayedTypes(): Record<number, string> {
  const out: Record<number, string> = {};
  for (const t of CHANNEL_TYPE_CODES) {
    const entry: RegistryEntry = CHANNEL_REGISTRY[t];
    if ("notRelayed" in entry) out[t] = (entry as NotRelayed).notRelayed;
  }
  return out;
}

export type { BuildRequestInput, ProviderAdapter, ResponseConverter, StreamFraming, StreamOptionsPolicy, UpstreamRequest } from "./types";
