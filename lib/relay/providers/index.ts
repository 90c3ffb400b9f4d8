// The registry of adapters for the OpenAI-speaking channel types. `satisfies` makes a forgotten
// type a compile error. Other protocols (Anthropic, Gemini…) join with their own folders.
import { ChannelType } from "../types";
import { azure } from "./azure";
import { cloudflare } from "./cloudflare";
import { custom } from "./custom";
import type { ProviderAdapter } from "./types";
import { ai360, deepseek, fastgpt, jina, minimax, mistral, moonshot, ollama, openai, qwen, siliconflow, xai, yi } from "./vendors";

export const OPENAI_FAMILY_TYPES = [
  ChannelType.OpenAI,
  ChannelType.Azure,
  ChannelType.Ollama,
  ChannelType.Custom,
  ChannelType.Ali,
  ChannelType.AI360,
  ChannelType.FastGPT,
  ChannelType.Moonshot,
  ChannelType.Yi,
  ChannelType.MiniMax,
  ChannelType.Jina,
  ChannelType.Cloudflare,
  ChannelType.SiliconFlow,
  ChannelType.Mistral,
  ChannelType.DeepSeek,
  ChannelType.XAI,
] as const;
export type OpenAIFamilyType = (typeof OPENAI_FAMILY_TYPES)[number];

export const providers = {
  [ChannelType.OpenAI]: openai,
  [ChannelType.Azure]: azure,
  [ChannelType.Ollama]: ollama,
  [ChannelType.Custom]: custom,
  [ChannelType.Ali]: qwen,
  [ChannelType.AI360]: ai360,
  [ChannelType.FastGPT]: fastgpt,
  [ChannelType.Moonshot]: moonshot,
  [ChannelType.Yi]: yi,
  [ChannelType.MiniMax]: minimax,
  [ChannelType.Jina]: jina,
  [ChannelType.Cloudflare]: cloudflare,
  [ChannelType.SiliconFlow]: siliconflow,
  [ChannelType.Mistral]: mistral,
  [ChannelType.DeepSeek]: deepseek,
  [ChannelType.XAI]: xai,
} satisfies Record<OpenAIFamilyType, ProviderAdapter>;

/** The adapter for a channel type, or undefined when Qiao has none for it. */
export function getProvider(type: number): ProviderAdapter | undefined {
  return (providers as Record<number, ProviderAdapter>)[type];
}

export type { BuildRequestInput, ProviderAdapter, ResponseConverter, StreamOptionsPolicy, UpstreamRequest } from "./types";
