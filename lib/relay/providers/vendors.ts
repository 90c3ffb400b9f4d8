// OpenAI-compatible vendors as data: base URL, paths, supported modes, stream_options policy and
// the few quirks each needs. Default base URLs are new-api's (inventory §3.1).
//
// stream_options policy, decided per vendor:
// - force: OpenAI, Ollama (its /v1 endpoint implements include_usage and ignores unknown fields),
//   Qwen compatible mode, Moonshot, SiliconFlow, DeepSeek, xAI: documented support, so billing
//   uses the upstream's exact usage.
// - strip: Mistral answers 422 "extra_forbidden" for stream_options; it sends usage in its last
//   chunk anyway.
// - passthrough: 360, FastGPT, Yi, MiniMax, Jina: support unknown; the client's own value goes
//   through and tokens are counted locally when no usage arrives.
import { KEEP, type JsonEdit } from "../json-body";
import { defineOpenAICompatible, reasoningModelEdits } from "./openai-compatible";

const CLOUDFLARE_AI_GATEWAY = "https://gateway.ai.cloudflare.com";

export const openai = defineOpenAICompatible({
  name: "OpenAI",
  defaultBaseUrl: "https://api.openai.com",
  modes: ["chat", "completions", "embeddings", "moderations", "images", "speech", "transcriptions", "translations"],
  streamOptions: "force",
  // A Cloudflare AI Gateway base already ends in ".../openai": the path goes without "/v1".
  url: (_input, base, path) => (base.startsWith(CLOUDFLARE_AI_GATEWAY) ? base + path.replace(/^\/v1/, "") : base + path),
  headers: (input) => (input.channel.openai_organization ? { "OpenAI-Organization": input.channel.openai_organization } : undefined),
  edits: (input) => reasoningModelEdits(input.upstreamModel),
});

export const ollama = defineOpenAICompatible({
  name: "Ollama",
  defaultBaseUrl: "http://localhost:11434",
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

export const qwen = defineOpenAICompatible({
  name: "Alibaba Qwen",
  defaultBaseUrl: "https://dashscope.aliyuncs.com",
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

export const ai360 = defineOpenAICompatible({
  name: "360",
  defaultBaseUrl: "https://api.360.cn",
  modes: ["chat", "embeddings", "images"],
  streamOptions: "passthrough",
});

export const fastgpt = defineOpenAICompatible({
  name: "FastGPT",
  defaultBaseUrl: "https://fastgpt.run/api/openapi",
  modes: ["chat"],
  streamOptions: "passthrough",
});

export const moonshot = defineOpenAICompatible({
  name: "Moonshot",
  defaultBaseUrl: "https://api.moonshot.cn",
  modes: ["chat"],
  streamOptions: "force",
});

export const yi = defineOpenAICompatible({
  name: "Yi",
  defaultBaseUrl: "https://api.lingyiwanwu.com",
  modes: ["chat"],
  streamOptions: "passthrough",
});

export const minimax = defineOpenAICompatible({
  name: "MiniMax",
  defaultBaseUrl: "https://api.minimax.chat",
  modes: ["chat"],
  streamOptions: "passthrough",
  paths: { chat: "/v1/text/chatcompletion_v2" },
});

export const jina = defineOpenAICompatible({
  name: "Jina",
  defaultBaseUrl: "https://api.jina.ai",
  modes: ["embeddings", "rerank"],
  streamOptions: "passthrough",
});

export const siliconflow = defineOpenAICompatible({
  name: "SiliconFlow",
  defaultBaseUrl: "https://api.siliconflow.cn",
  modes: ["chat", "completions", "embeddings", "rerank", "images", "speech", "transcriptions"],
  streamOptions: "force",
});

export const mistral = defineOpenAICompatible({
  name: "Mistral",
  defaultBaseUrl: "https://api.mistral.ai",
  modes: ["chat", "embeddings"],
  streamOptions: "strip",
});

export const deepseek = defineOpenAICompatible({
  name: "DeepSeek",
  defaultBaseUrl: "https://api.deepseek.com",
  modes: ["chat", "completions"],
  streamOptions: "force",
  // DeepSeek serves FIM completions only under /beta.
  paths: { completions: "/beta/completions" },
});

export const xai = defineOpenAICompatible({
  name: "xAI",
  defaultBaseUrl: "https://api.x.ai",
  modes: ["chat", "completions", "embeddings", "images"],
  streamOptions: "force",
});
