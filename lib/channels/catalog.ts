// The channel types the product supports (spec §3 channel type table, plus DeepSeek and xAI), with
// what the console needs to know about each: its label, default base URL, default models (the
// channel form prefills them; `GET /api/models` serves them) and what the channel's `other` field
// holds. Code that needs one entry per type writes `satisfies Record<ChannelType, …>`, so adding
// a type here is a compile error everywhere it is not yet handled.
export const CHANNEL_TYPES = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  Custom: 8,
  PaLM: 11,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  AI360: 19,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Yi: 31,
  AWS: 33,
  Cohere: 34,
  MiniMax: 35,
  Suno: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAI: 41,
  Mistral: 42,
  DeepSeek: 43,
  XAI: 48,
} as const;

export type ChannelType = (typeof CHANNEL_TYPES)[keyof typeof CHANNEL_TYPES];

export type ChannelOther = {
  /** What the field holds, for the channel form's label. */
  label: string;
  /** Prefilled when the field is empty. */
  default: string;
};

export type ChannelTypeInfo = {
  /** The label the console shows. */
  name: string;
  /** Used when the channel's base_url is empty; "" = the channel must give one, or needs none. */
  baseUrl: string;
  models: readonly string[];
  /** The meaning of `channel.other` for this type; null when unused. */
  other: ChannelOther | null;
  /** How the key field is composed, when it is more than one API key. */
  keyFormat?: string;
};

const OPENAI_MODELS = [
  "gpt-3.5-turbo",
  "gpt-3.5-turbo-0613",
  "gpt-3.5-turbo-1106",
  "gpt-3.5-turbo-0125",
  "gpt-3.5-turbo-16k",
  "gpt-3.5-turbo-16k-0613",
  "gpt-3.5-turbo-instruct",
  "gpt-4",
  "gpt-4-0613",
  "gpt-4-1106-preview",
  "gpt-4-0125-preview",
  "gpt-4-32k",
  "gpt-4-32k-0613",
  "gpt-4-turbo-preview",
  "gpt-4-turbo",
  "gpt-4-turbo-2024-04-09",
  "gpt-4-vision-preview",
  "chatgpt-4o-latest",
  "gpt-4o",
  "gpt-4o-2024-05-13",
  "gpt-4o-2024-08-06",
  "gpt-4o-2024-11-20",
  "gpt-4o-mini",
  "gpt-4o-mini-2024-07-18",
  "o1-preview",
  "o1-preview-2024-09-12",
  "o1-mini",
  "o1-mini-2024-09-12",
  "gpt-4o-audio-preview",
  "gpt-4o-audio-preview-2024-10-01",
  "gpt-4o-realtime-preview",
  "gpt-4o-realtime-preview-2024-10-01",
  "text-embedding-ada-002",
  "text-embedding-3-small",
  "text-embedding-3-large",
  "text-curie-001",
  "text-babbage-001",
  "text-ada-001",
  "text-moderation-latest",
  "text-moderation-stable",
  "text-davinci-edit-001",
  "davinci-002",
  "babbage-002",
  "dall-e-3",
  "whisper-1",
  "tts-1",
  "tts-1-1106",
  "tts-1-hd",
  "tts-1-hd-1106",
] as const;

/** OpenAI's video models (lib/tasks/video), served by OpenAI and Azure channels only. */
const OPENAI_VIDEO_MODELS = ["sora-2", "sora-2-pro"] as const;

const CLAUDE_MODELS = [
  "claude-instant-1.2",
  "claude-2",
  "claude-2.0",
  "claude-2.1",
  "claude-3-sonnet-20240229",
  "claude-3-opus-20240229",
  "claude-3-haiku-20240307",
  "claude-3-5-haiku-20241022",
  "claude-3-5-sonnet-20240620",
  "claude-3-5-sonnet-20241022",
] as const;

/** Claude models AWS Bedrock serves (each maps to a Bedrock model id in the relay). */
const AWS_CLAUDE_MODELS = CLAUDE_MODELS.filter((m) => m !== "claude-2");

/** Midjourney's pseudo-models, one per action; all of them are priced per call (ModelPrice). */
const MIDJOURNEY_MODELS = [
  "mj_imagine",
  "mj_describe",
  "mj_blend",
  "mj_upscale",
  "mj_variation",
  "mj_reroll",
  "mj_modal",
  "mj_inpaint",
  "mj_zoom",
  "mj_custom_zoom",
  "mj_shorten",
  "mj_high_variation",
  "mj_low_variation",
  "mj_pan",
  "swap_face",
  "mj_upload",
] as const;

const CLOUDFLARE_MODELS = [
  "@cf/meta/llama-3.1-8b-instruct",
  "@cf/meta/llama-2-7b-chat-fp16",
  "@cf/meta/llama-2-7b-chat-int8",
  "@cf/mistral/mistral-7b-instruct-v0.1",
  "@hf/thebloke/deepseek-coder-6.7b-base-awq",
  "@hf/thebloke/deepseek-coder-6.7b-instruct-awq",
  "@cf/deepseek-ai/deepseek-math-7b-base",
  "@cf/deepseek-ai/deepseek-math-7b-instruct",
  "@cf/thebloke/discolm-german-7b-v1-awq",
  "@cf/tiiuae/falcon-7b-instruct",
  "@cf/google/gemma-2b-it-lora",
  "@hf/google/gemma-7b-it",
  "@cf/google/gemma-7b-it-lora",
  "@hf/nousresearch/hermes-2-pro-mistral-7b",
  "@hf/thebloke/llama-2-13b-chat-awq",
  "@cf/meta-llama/llama-2-7b-chat-hf-lora",
  "@cf/meta/llama-3-8b-instruct",
  "@hf/thebloke/llamaguard-7b-awq",
  "@hf/thebloke/mistral-7b-instruct-v0.1-awq",
  "@hf/mistralai/mistral-7b-instruct-v0.2",
  "@cf/mistral/mistral-7b-instruct-v0.2-lora",
  "@hf/thebloke/neural-chat-7b-v3-1-awq",
  "@cf/openchat/openchat-3.5-0106",
  "@hf/thebloke/openhermes-2.5-mistral-7b-awq",
  "@cf/microsoft/phi-2",
  "@cf/qwen/qwen1.5-0.5b-chat",
  "@cf/qwen/qwen1.5-1.8b-chat",
  "@cf/qwen/qwen1.5-14b-chat-awq",
  "@cf/qwen/qwen1.5-7b-chat-awq",
  "@cf/defog/sqlcoder-7b-2",
  "@hf/nexusflow/starling-lm-7b-beta",
  "@cf/tinyllama/tinyllama-1.1b-chat-v1.0",
  "@hf/thebloke/zephyr-7b-beta-awq",
] as const;

const SILICONFLOW_MODELS = [
  "THUDM/glm-4-9b-chat",
  "InstantX/InstantID",
  "ByteDance/SDXL-Lightning",
  "deepseek-ai/deepseek-llm-67b-chat",
  "Qwen/Qwen1.5-14B-Chat",
  "Qwen/Qwen1.5-7B-Chat",
  "Qwen/Qwen1.5-110B-Chat",
  "Qwen/Qwen1.5-32B-Chat",
  "01-ai/Yi-1.5-6B-Chat",
  "01-ai/Yi-1.5-9B-Chat-16K",
  "01-ai/Yi-1.5-34B-Chat-16K",
  "THUDM/chatglm3-6b",
  "deepseek-ai/DeepSeek-V2-Chat",
  "Qwen/Qwen2-72B-Instruct",
  "Qwen/Qwen2-7B-Instruct",
  "Qwen/Qwen2-57B-A14B-Instruct",
  "deepseek-ai/DeepSeek-Coder-V2-Instruct",
  "Qwen/Qwen2-1.5B-Instruct",
  "internlm/internlm2_5-7b-chat",
  "BAAI/bge-large-en-v1.5",
  "BAAI/bge-large-zh-v1.5",
  "Pro/Qwen/Qwen2-7B-Instruct",
  "Pro/Qwen/Qwen2-1.5B-Instruct",
  "Pro/Qwen/Qwen1.5-7B-Chat",
  "Pro/THUDM/glm-4-9b-chat",
  "Pro/THUDM/chatglm3-6b",
  "Pro/01-ai/Yi-1.5-9B-Chat-16K",
  "Pro/01-ai/Yi-1.5-6B-Chat",
  "Pro/google/gemma-2-9b-it",
  "Pro/internlm/internlm2_5-7b-chat",
  "Pro/meta-llama/Meta-Llama-3-8B-Instruct",
  "Pro/mistralai/Mistral-7B-Instruct-v0.2",
  "black-forest-labs/FLUX.1-schnell",
  "iic/SenseVoiceSmall",
  "netease-youdao/bce-embedding-base_v1",
  "BAAI/bge-m3",
  "internlm/internlm2_5-20b-chat",
  "Qwen/Qwen2-Math-72B-Instruct",
  "netease-youdao/bce-reranker-base_v1",
  "BAAI/bge-reranker-v2-m3",
] as const;

const apiVersion = (fallback: string): ChannelOther => ({ label: "API 版本", default: fallback });

export const CHANNEL_CATALOG = {
  1: { name: "OpenAI", baseUrl: "https://api.openai.com", models: [...OPENAI_MODELS, ...OPENAI_VIDEO_MODELS], other: null },
  2: { name: "Midjourney Proxy", baseUrl: "", models: MIDJOURNEY_MODELS, other: null },
  3: {
    name: "Azure OpenAI",
    baseUrl: "",
    models: [...OPENAI_MODELS, ...OPENAI_VIDEO_MODELS],
    other: apiVersion("2023-06-01-preview"),
  },
  4: { name: "Ollama", baseUrl: "http://localhost:11434", models: ["llama3-7b"], other: null },
  5: { name: "Midjourney Proxy Plus", baseUrl: "", models: MIDJOURNEY_MODELS, other: null },
  8: { name: "自定义渠道", baseUrl: "", models: OPENAI_MODELS, other: null },
  11: { name: "Google PaLM2", baseUrl: "https://generativelanguage.googleapis.com", models: ["PaLM-2"], other: null },
  14: { name: "Anthropic Claude", baseUrl: "https://api.anthropic.com", models: CLAUDE_MODELS, other: null },
  15: {
    name: "百度文心千帆",
    baseUrl: "https://aip.baidubce.com",
    models: [
      "ERNIE-4.0-8K",
      "ERNIE-3.5-8K",
      "ERNIE-3.5-8K-0205",
      "ERNIE-3.5-8K-1222",
      "ERNIE-Bot-8K",
      "ERNIE-3.5-4K-0205",
      "ERNIE-Speed-8K",
      "ERNIE-Speed-128K",
      "ERNIE-Lite-8K-0922",
      "ERNIE-Lite-8K-0308",
      "ERNIE-Tiny-8K",
      "BLOOMZ-7B",
      "Embedding-V1",
      "bge-large-zh",
      "bge-large-en",
      "tao-8k",
    ],
    other: null,
    keyFormat: "API Key|Secret Key",
  },
  16: {
    name: "智谱 ChatGLM",
    baseUrl: "https://open.bigmodel.cn",
    models: ["chatglm_turbo", "chatglm_pro", "chatglm_std", "chatglm_lite"],
    other: null,
    keyFormat: "id.secret",
  },
  17: {
    name: "阿里通义千问",
    baseUrl: "https://dashscope.aliyuncs.com",
    models: ["qwen-turbo", "qwen-plus", "qwen-max", "qwen-max-longcontext", "text-embedding-v1"],
    other: { label: "插件（X-DashScope-Plugin）", default: "" },
  },
  18: {
    name: "讯飞星火认知",
    // The WebSocket API's host (wss://…/{version}/chat); an http(s) base URL is used as ws(s).
    baseUrl: "https://spark-api.xf-yun.com",
    models: ["SparkDesk", "SparkDesk-v1.1", "SparkDesk-v2.1", "SparkDesk-v3.1", "SparkDesk-v3.5", "SparkDesk-v4.0"],
    // The version a model name does not carry (SparkDesk-v3.5 does); Lite v1.1 is the adapter's
    // fallback too (lib/relay/providers/spark/auth.ts). v2.1 is retired by iFlytek.
    other: { label: "星火大模型版本", default: "v1.1" },
    keyFormat: "APPID|APISecret|APIKey",
  },
  19: {
    name: "360 智脑",
    baseUrl: "https://api.360.cn",
    models: [
      "360gpt-turbo",
      "360gpt-turbo-responsibility-8k",
      "360gpt-pro",
      "360gpt2-pro",
      "360GPT_S2_V9",
      "embedding-bert-512-v1",
      "embedding_s1_v1",
      "semantic_similarity_s1_v1",
    ],
    other: null,
  },
  21: { name: "知识库：AI Proxy", baseUrl: "https://api.aiproxy.io", models: [], other: { label: "知识库 ID", default: "" } },
  22: { name: "知识库：FastGPT", baseUrl: "https://fastgpt.run/api/openapi", models: OPENAI_MODELS, other: null },
  23: {
    name: "腾讯混元",
    baseUrl: "https://hunyuan.tencentcloudapi.com",
    models: ["hunyuan-lite", "hunyuan-standard", "hunyuan-standard-256K", "hunyuan-pro"],
    other: null,
    keyFormat: "AppId|SecretId|SecretKey",
  },
  24: {
    name: "Google Gemini",
    baseUrl: "https://generativelanguage.googleapis.com",
    models: [
      "gemini-1.0-pro-latest",
      "gemini-1.0-pro-001",
      "gemini-1.5-pro-latest",
      "gemini-1.5-flash-latest",
      "gemini-ultra",
      "gemini-1.0-pro-vision-latest",
      "gemini-1.0-pro-vision-001",
      "gemini-1.5-pro-exp-0827",
      "gemini-1.5-flash-exp-0827",
      "gemini-exp-1114",
    ],
    other: apiVersion("v1beta"),
  },
  25: {
    name: "Moonshot",
    baseUrl: "https://api.moonshot.cn",
    models: ["moonshot-v1-8k", "moonshot-v1-32k", "moonshot-v1-128k"],
    other: null,
  },
  26: {
    name: "智谱 GLM-4V",
    baseUrl: "https://open.bigmodel.cn",
    models: [
      "glm-4",
      "glm-4v",
      "glm-3-turbo",
      "glm-4-alltools",
      "glm-4-plus",
      "glm-4-0520",
      "glm-4-air",
      "glm-4-airx",
      "glm-4-long",
      "glm-4-flash",
      "glm-4v-plus",
    ],
    other: null,
    keyFormat: "id.secret",
  },
  31: {
    name: "零一万物",
    baseUrl: "https://api.lingyiwanwu.com",
    models: [
      "yi-large",
      "yi-medium",
      "yi-vision",
      "yi-medium-200k",
      "yi-spark",
      "yi-large-rag",
      "yi-large-turbo",
      "yi-large-preview",
      "yi-large-rag-preview",
    ],
    other: null,
  },
  33: { name: "AWS Claude", baseUrl: "", models: AWS_CLAUDE_MODELS, other: null, keyFormat: "AccessKey|SecretAccessKey|Region" },
  34: {
    name: "Cohere",
    baseUrl: "https://api.cohere.ai",
    models: [
      "command-r",
      "command-r-plus",
      "command-r-08-2024",
      "command-r-plus-08-2024",
      "c4ai-aya-23-35b",
      "c4ai-aya-23-8b",
      "command-light",
      "command-light-nightly",
      "command",
      "command-nightly",
      "rerank-english-v3.0",
      "rerank-multilingual-v3.0",
      "rerank-english-v2.0",
      "rerank-multilingual-v2.0",
      "embed-english-v3.0",
      "embed-multilingual-v3.0",
      "embed-english-light-v3.0",
      "embed-multilingual-light-v3.0",
    ],
    other: null,
  },
  35: {
    name: "MiniMax",
    baseUrl: "https://api.minimax.chat",
    models: ["abab6.5-chat", "abab6.5s-chat", "abab6-chat", "abab5.5-chat", "abab5.5s-chat"],
    other: null,
  },
  36: { name: "Suno API", baseUrl: "", models: ["suno_music", "suno_lyrics"], other: null },
  37: { name: "Dify", baseUrl: "", models: [], other: null },
  38: { name: "Jina", baseUrl: "https://api.jina.ai", models: ["jina-clip-v1", "jina-reranker-v2-base-multilingual"], other: null },
  39: {
    name: "Cloudflare",
    baseUrl: "https://api.cloudflare.com",
    models: CLOUDFLARE_MODELS,
    other: { label: "Account ID", default: "" },
  },
  40: { name: "SiliconCloud", baseUrl: "https://api.siliconflow.cn", models: SILICONFLOW_MODELS, other: null },
  41: {
    name: "Vertex AI",
    baseUrl: "",
    models: [
      "claude-3-sonnet-20240229",
      "claude-3-opus-20240229",
      "claude-3-haiku-20240307",
      "claude-3-5-sonnet-20240620",
      "gemini-1.5-pro-001",
      "gemini-1.5-flash-001",
      "gemini-pro",
      "gemini-pro-vision",
      "meta/llama3-405b-instruct-maas",
      "text-embedding-004",
      "text-multilingual-embedding-002",
    ],
    // A plain region, or JSON {"default": "us-central1", "<model>": "<region>"}.
    other: { label: "部署地区（Region）", default: "us-central1" },
    keyFormat: "服务账号 JSON 凭证",
  },
  42: {
    name: "Mistral AI",
    baseUrl: "https://api.mistral.ai",
    models: [
      "open-mistral-7b",
      "open-mixtral-8x7b",
      "mistral-small-latest",
      "mistral-medium-latest",
      "mistral-large-latest",
      "mistral-embed",
    ],
    other: null,
  },
  43: { name: "DeepSeek", baseUrl: "https://api.deepseek.com", models: ["deepseek-chat", "deepseek-reasoner"], other: null },
  48: {
    name: "xAI",
    baseUrl: "https://api.x.ai",
    models: [
      "grok-3-beta",
      "grok-3-mini-beta",
      "grok-3-fast-beta",
      "grok-3-mini-fast-beta",
      "grok-3-mini-beta-high",
      "grok-3-mini-beta-low",
      "grok-3-mini-beta-medium",
      "grok-3-mini-fast-beta-high",
      "grok-3-mini-fast-beta-low",
      "grok-3-mini-fast-beta-medium",
      "grok-2-image",
      "grok-2",
      "grok-2-vision",
      "grok-beta",
      "grok-vision-beta",
    ],
    other: null,
  },
} as const satisfies Record<ChannelType, ChannelTypeInfo>;

export const CHANNEL_TYPE_CODES = Object.values(CHANNEL_TYPES) as ChannelType[];

export const isChannelType = (type: number): type is ChannelType => Object.hasOwn(CHANNEL_CATALOG, type);

export function channelTypeInfo(type: number): ChannelTypeInfo | undefined {
  return isChannelType(type) ? CHANNEL_CATALOG[type] : undefined;
}

/** `GET /api/models`: channel type → default models. */
export function defaultModelsByType(): Record<ChannelType, string[]> {
  return Object.fromEntries(CHANNEL_TYPE_CODES.map((type) => [type, [...CHANNEL_CATALOG[type].models]])) as Record<ChannelType, string[]>;
}
