// one-api numbers its channel types its own way (relay/channeltype/define.go): past 24 the numbers
// mean other vendors than new-api's and Qiao's (one-api's 36 is DeepSeek, Qiao's 36 is Suno), and
// one-api keeps per-vendor settings in `config` (JSON: region, ak/sk, user_id, api_version,
// library_id, plugin, the Vertex credentials) where Qiao has the key and `other`. A one-api channel
// becomes the Qiao channel that sends the same requests to the same upstream:
// - a vendor Qiao has natively keeps it (Minimax → MiniMax, Vertex AI → Vertex AI, …);
// - an OpenAI-protocol vendor whose URLs are its base + OpenAI's paths (API2D, Groq, OpenRouter,
//   one-api's own 自定义 …) becomes an OpenAI channel on that base (one-api's default base when the
//   channel left it empty), which serves every OpenAI endpoint the same way;
// - a vendor whose chat URL is not base + /v1/chat/completions (Doubao, Novita, Qianfan v2, an
//   OpenAI-compatible base without /v1) becomes a custom channel on its full chat URL: chat only,
//   and the report says so;
// - a vendor Qiao lacks (Coze, DeepL, Replicate, one-api's Proxy) comes in disabled as type 0
//   (its number would name another vendor in Qiao), as an unknown type from new-api does.
import { isObj } from "@/lib/obj";
import { CHANNEL_TYPES, type ChannelType } from "@/lib/channels/catalog";

const T = CHANNEL_TYPES;

/** one-api's `config` column (model/channel.go ChannelConfig). */
type OneApiConfig = {
  region?: string;
  sk?: string;
  ak?: string;
  user_id?: string;
  api_version?: string;
  library_id?: string;
  plugin?: string;
  vertex_ai_project_id?: string;
  vertex_ai_adc?: string;
};

type Target =
  /** Qiao's own adapter for the vendor. */
  | { to: ChannelType }
  /** An OpenAI channel on this base (one-api's default for the type). */
  | { openai: string }
  /** A custom channel on the base + this chat path (one-api's default base for the type). */
  | { chat: string; base: string };

/** one-api's type → Qiao's; a type not here (Coze, DeepL, Proxy, Replicate, unknown) Qiao lacks. */
const ONE_API_TYPES: Record<number, Target> = {
  1: { to: T.OpenAI },
  2: { openai: "https://oa.api2d.net" }, // API2D
  3: { to: T.Azure },
  4: { openai: "https://api.closeai-proxy.xyz" }, // CloseAI
  5: { openai: "https://api.openai-sb.com" }, // OpenAI-SB
  6: { openai: "https://api.openaimax.com" }, // OpenAIMax
  7: { openai: "https://api.ohmygpt.com" }, // OhMyGPT
  8: { openai: "" }, // one-api's 自定义: an OpenAI base, not Qiao's full URL
  9: { openai: "https://api.caipacity.com" }, // Ails
  10: { openai: "https://api.aiproxy.io" }, // AI Proxy
  11: { to: T.PaLM },
  12: { openai: "https://api.api2gpt.com" }, // API2GPT
  13: { openai: "https://api.aigc2d.com" }, // AIGC2D
  14: { to: T.Anthropic },
  15: { to: T.Baidu },
  16: { to: T.Zhipu },
  17: { to: T.Ali },
  18: { to: T.Xunfei },
  19: { to: T.AI360 },
  20: { openai: "https://openrouter.ai/api" }, // OpenRouter
  21: { to: T.AIProxyLibrary },
  22: { to: T.FastGPT },
  23: { to: T.Tencent },
  24: { to: T.Gemini },
  25: { to: T.Moonshot },
  26: { openai: "https://api.baichuan-ai.com" }, // Baichuan
  27: { to: T.MiniMax },
  28: { to: T.Mistral },
  29: { openai: "https://api.groq.com/openai" }, // Groq
  30: { to: T.Ollama },
  31: { to: T.Yi },
  32: { openai: "https://api.stepfun.com" }, // StepFun
  33: { to: T.AWS },
  35: { to: T.Cohere },
  36: { to: T.DeepSeek },
  37: { to: T.Cloudflare },
  39: { openai: "https://api.together.xyz" }, // together.ai
  40: { chat: "/api/v3/chat/completions", base: "https://ark.cn-beijing.volces.com" }, // Doubao
  41: { chat: "/chat/completions", base: "https://api.novita.ai/v3/openai" }, // Novita
  42: { to: T.VertexAI },
  44: { to: T.SiliconFlow },
  45: { to: T.XAI },
  47: { chat: "/v2/chat/completions", base: "https://qianfan.baidubce.com" }, // Baidu Qianfan v2
  48: { openai: "https://spark-api-open.xf-yun.com" }, // Spark's OpenAI-protocol API
  49: { to: T.Ali }, // AliBailian: DashScope's OpenAI-compatible mode, which Qiao's Ali channel speaks
  51: { to: T.Gemini }, // Gemini's OpenAI-compatible API: the same models and key, natively
};
const OPENAI_COMPATIBLE = 50;
const GEMINI_OPENAI_SUFFIX = /\/v1beta\/openai\/?$/;

/** one-api's types Qiao has no adapter for, by name (for the report). */
const UNSUPPORTED_NAMES: Record<number, string> = { 34: "Coze", 38: "DeepL", 43: "Proxy", 46: "Replicate" };

export const ONE_API_MSG = {
  chatOnly: (url: string) => `one-api 的该渠道类型在 Qiao 中为自定义渠道（${url}），只转发对话接口`,
  unsupported: (type: number) =>
    `one-api 渠道类型 ${UNSUPPORTED_NAMES[type] ? `${type}（${UNSUPPORTED_NAMES[type]}）` : `${type} `}不受支持，导入后为禁用状态`,
} as const;

/** Qiao's channel fields; `unsupported`: Qiao lacks the vendor (type 0, disabled, with the note). */
export type ConvertedChannel = { type: number; key: string; base_url: string; other: string; note?: string; unsupported?: true };

/** The Qiao channel fields for a one-api channel row's type, key, base URL, `other` and `config`. */
export function fromOneApiChannel(row: { type: number; key: string; base_url: string; other: string; config: string }): ConvertedChannel {
  let config: OneApiConfig = {};
  try {
    const parsed = row.config ? JSON.parse(row.config) : {};
    if (isObj(parsed)) config = parsed as OneApiConfig;
  } catch {}
  const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const base = row.base_url.trim().replace(/\/+$/, "");
  const kept = { key: row.key, base_url: row.base_url, other: row.other };

  if (row.type === OPENAI_COMPATIBLE) {
    // one-api sends base + the path without its /v1: a base ending in /v1 is an OpenAI base.
    if (/\/v1$/.test(base)) return { ...kept, type: T.OpenAI, base_url: base.slice(0, -3), other: "" };
    const url = `${base}/chat/completions`;
    return { ...kept, type: T.Custom, base_url: url, other: "", note: ONE_API_MSG.chatOnly(url) };
  }
  const target = ONE_API_TYPES[row.type];
  if (!target) return { ...kept, type: 0, unsupported: true, note: ONE_API_MSG.unsupported(row.type) };
  if ("openai" in target) return { ...kept, type: T.OpenAI, base_url: base || target.openai, other: "" };
  if ("chat" in target) {
    const url = `${base || target.base}${target.chat}`;
    return { ...kept, type: T.Custom, base_url: url, other: "", note: ONE_API_MSG.chatOnly(url) };
  }
  // Settings one-api read from `config`, with `other` as the older place for the first three.
  const setting = (name: keyof OneApiConfig) => text(config[name]) || row.other.trim();
  switch (target.to) {
    case T.Azure:
    case T.Xunfei:
      return { ...kept, type: target.to, other: setting("api_version") };
    case T.Gemini:
      // GeminiOpenAICompatible's base is Gemini's base + /v1beta/openai/: Qiao's default serves it.
      return {
        ...kept,
        type: T.Gemini,
        base_url: base.replace(GEMINI_OPENAI_SUFFIX, ""),
        other: row.type === 24 ? setting("api_version") : "",
      };
    case T.AIProxyLibrary:
      return { ...kept, type: target.to, other: setting("library_id") };
    case T.Ali:
      return { ...kept, type: T.Ali, other: row.type === 17 ? setting("plugin") : "" };
    case T.AWS: {
      const [ak, sk, region] = [text(config.ak), text(config.sk), text(config.region)];
      return { ...kept, type: target.to, key: ak && sk ? `${ak}|${sk}|${region}` : row.key, other: "" };
    }
    case T.Cloudflare:
      return { ...kept, type: target.to, other: text(config.user_id) || row.other };
    case T.VertexAI:
      // Qiao reads the project from the service account JSON, the region from `other`.
      return { ...kept, type: target.to, key: text(config.vertex_ai_adc) || row.key, other: text(config.region) || row.other };
    default:
      return { ...kept, type: target.to };
  }
}
