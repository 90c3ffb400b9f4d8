// OpenAI-compatible vendors as data: paths, supported modes, stream_options policy and the few
// quirks each needs. Names and default base URLs are the catalogue's (lib/channels/catalog.ts).
//
// stream_options policy, decided per vendor:
// - force: OpenAI, Ollama (its /v1 endpoint implements include_usage and ignores unknown fields),
//   Qwen compatible mode, Moonshot, SiliconFlow, DeepSeek, xAI: documented support, so billing
//   uses the upstream's exact usage.
// - strip: Mistral answers 422 "extra_forbidden" for stream_options; it sends usage in its last
//   chunk anyway.
// - passthrough: 360, FastGPT, Yi, MiniMax, Jina: support unknown; the client's own value goes
//   through and tokens are counted locally when no usage arrives.
//
// Request parameters (openai-parameters.ts): "openai" for OpenAI's own models (o-series and gpt-5
// take max_completion_tokens, unknown fields refused), "strict" for Mistral, which refuses unknown
// fields (top_k from a Gemini caller), "lenient" (the default) for the rest, which ignore what they
// do not know. Every vendor gets max_tokens clamped to the model's output limit.
import { CHANNEL_CATALOG, CHANNEL_TYPES as T } from "@/lib/channels/catalog";
import { KEEP, type JsonEdit } from "../request/json-body";
import { baseUrlOf, CLOUDFLARE_AI_GATEWAY, defineOpenAICompatible } from "./openai-compatible";
import { responsesPassthrough } from "./openai-responses";
import type { BuildRequestInput, ProviderAdapter } from "./types";

// A Cloudflare AI Gateway base already ends in ".../openai": the path goes without "/v1".
const openaiUrl = (base: string, path: string) => (base.startsWith(CLOUDFLARE_AI_GATEWAY) ? base + path.replace(/^\/v1/, "") : base + path);
const openaiOrganization = (input: BuildRequestInput) =>
  input.channel.openai_organization ? { "OpenAI-Organization": input.channel.openai_organization } : undefined;

export const openai: ProviderAdapter = {
  ...defineOpenAICompatible(T.OpenAI, {
    modes: ["chat", "completions", "embeddings", "moderations", "images", "speech", "transcriptions", "translations"],
    streamOptions: "force",
    url: (_input, base, path) => openaiUrl(base, path),
    headers: openaiOrganization,
    parameters: "openai",
  }),
  native: {
    /** A Responses API caller: its request goes to OpenAI's own `/v1/responses` as it came. */
    "openai-responses": (input) =>
      responsesPassthrough(
        input,
        openaiUrl(baseUrlOf(input, CHANNEL_CATALOG[T.OpenAI].baseUrl, CHANNEL_CATALOG[T.OpenAI].name), "/v1/responses"),
        {
          Authorization: `Bearer ${input.channel.key}`,
          ...openaiOrganization(input),
        },
      ),
  },
};

export const ollama = defineOpenAICompatible(T.Ollama, {
  modes: ["chat", "completions", "embeddings"],
  streamOptions: "force",
  auth: "none",
});

/** DashScope rejects top_p outside (0, 1): clamp into [0.001, 0.999], only when the client sent it. */
const clampTopP: JsonEdit = (cur: unknown) => {
  if (typeof cur !== "number") return KEEP;
  if (cur >= 1) return 0.999;
  if (cur <= 0) return 0.001;
  return KEEP;
};

export const qwen = defineOpenAICompatible(T.Ali, {
  modes: ["chat", "completions", "embeddings"],
  streamOptions: "force",
  paths: {
    chat: "/compatible-mode/v1/chat/completions",
    completions: "/compatible-mode/v1/completions",
    embeddings: "/compatible-mode/v1/embeddings",
  },
  headers: (input) => {
    const h: Record<string, string> = {};
    if (input.stream) h["X-DashScope-SSE"] = "enable";
    if (input.channel.other) h["X-DashScope-Plugin"] = input.channel.other;
    return h;
  },
  edits: () => ({ top_p: clampTopP }),
});

export const ai360 = defineOpenAICompatible(T.AI360, {
  modes: ["chat", "embeddings", "images"],
  streamOptions: "passthrough",
});

export const fastgpt = defineOpenAICompatible(T.FastGPT, {
  modes: ["chat"],
  streamOptions: "passthrough",
});

export const moonshot = defineOpenAICompatible(T.Moonshot, {
  modes: ["chat"],
  streamOptions: "force",
});

export const yi = defineOpenAICompatible(T.Yi, {
  modes: ["chat"],
  streamOptions: "passthrough",
});

export const minimax = defineOpenAICompatible(T.MiniMax, {
  modes: ["chat"],
  streamOptions: "passthrough",
  paths: { chat: "/v1/text/chatcompletion_v2" },
});

export const jina = defineOpenAICompatible(T.Jina, {
  modes: ["embeddings", "rerank"],
  streamOptions: "passthrough",
});

export const siliconflow = defineOpenAICompatible(T.SiliconFlow, {
  modes: ["chat", "completions", "embeddings", "rerank", "images", "speech", "transcriptions"],
  streamOptions: "force",
});

export const mistral = defineOpenAICompatible(T.Mistral, {
  modes: ["chat", "embeddings"],
  streamOptions: "strip",
  parameters: "strict",
});

export const deepseek = defineOpenAICompatible(T.DeepSeek, {
  modes: ["chat", "completions"],
  streamOptions: "force",
  // DeepSeek serves FIM completions only under /beta.
  paths: { completions: "/beta/completions" },
});

export const xai = defineOpenAICompatible(T.XAI, {
  modes: ["chat", "completions", "embeddings", "images"],
  streamOptions: "force",
});
