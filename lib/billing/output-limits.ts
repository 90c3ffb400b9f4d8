// Model facts: the most tokens one answer of a model can hold (its "max output tokens"), as each
// vendor publishes it. Billing bounds an upstream's reported completion tokens by it when the
// request set no max_tokens (lib/billing/usage-bounds.ts); the relay clamps a request's max_tokens
// to it, or to the channel's own figure (lib/relay/providers/output-limit.ts), on the way up.
//
// Sources (checked against the vendors' model pages; thinking/reasoning tokens count as output on
// every one of them, so they fit under these limits):
// - OpenAI: https://platform.openai.com/docs/models (each model's "Max output tokens").
// - Anthropic: https://docs.anthropic.com/en/docs/about-claude/models/overview ("Max output"),
//   and each model's page (https://platform.claude.com/docs/en/models/opus-4-6/overview…);
//   Claude 3.7 Sonnet reaches 128 000 with the `output-128k-2025-02-19` beta header, so that is
//   the limit taken.
// - Google: https://ai.google.dev/gemini-api/docs/models ("Output token limit"); Gemini 3 Pro and
//   Flash: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-pro (65 536).
// - DeepSeek: https://api-docs.deepseek.com/quick_start/pricing ("MAX OUTPUT").
// - Alibaba Qwen: https://help.aliyun.com/zh/model-studio/models (最大输出, thinking included).
// - Zhipu GLM: https://docs.bigmodel.cn/cn/guide/start/model-overview (最大输出).
// Where a family's members differ, the entry takes the largest: a limit too high only lets an
// honest answer through; one too low would bill less than a real answer.

/** [model name prefix, max output tokens]; the longest matching prefix wins. */
const OUTPUT_LIMITS: ReadonlyArray<readonly [string, number]> = [
  // OpenAI
  ["gpt-3.5-turbo", 4_096],
  ["gpt-4", 8_192],
  ["gpt-4-turbo", 4_096],
  ["gpt-4-1106", 4_096],
  ["gpt-4-0125", 4_096],
  ["gpt-4o", 16_384],
  ["gpt-4o-mini", 16_384],
  ["chatgpt-4o", 16_384],
  ["gpt-4.1", 32_768],
  ["gpt-4.5", 16_384],
  ["gpt-5", 128_000],
  ["gpt-5-chat", 16_384],
  ["gpt-5.1-chat", 16_384],
  ["gpt-5.2-chat", 16_384],
  ["o1", 100_000],
  ["o1-mini", 65_536],
  ["o1-preview", 32_768],
  ["o3", 100_000],
  ["o4-mini", 100_000],
  // Anthropic
  ["claude-3-haiku", 4_096],
  ["claude-3-sonnet", 4_096],
  ["claude-3-opus", 4_096],
  ["claude-3-5-sonnet", 8_192],
  ["claude-3-5-haiku", 8_192],
  ["claude-3-7-sonnet", 128_000],
  ["claude-sonnet-4", 64_000],
  ["claude-sonnet-4-5", 64_000],
  ["claude-opus-4", 32_000],
  ["claude-opus-4-1", 32_000],
  ["claude-opus-4-5", 64_000],
  ["claude-opus-4-6", 128_000],
  ["claude-opus-4-7", 128_000],
  ["claude-opus-4-8", 128_000],
  ["claude-sonnet-4-6", 128_000],
  ["claude-haiku-4", 64_000],
  ["claude-haiku-4-5", 64_000],
  ["claude-opus-5", 128_000],
  ["claude-fable-5", 128_000],
  // Google
  ["gemini-1.5", 8_192],
  ["gemini-2.0", 8_192],
  ["gemini-2.5", 65_536],
  ["gemini-3", 65_536],
  // DeepSeek
  ["deepseek-chat", 8_192],
  ["deepseek-reasoner", 65_536],
  // Alibaba Qwen
  ["qwen-turbo", 16_384],
  ["qwen-plus", 32_768],
  ["qwen-max", 8_192],
  ["qwen3", 81_920],
  ["qwen3-max", 65_536],
  // Zhipu GLM
  ["glm-4", 4_096],
  ["glm-4.5", 98_304],
  ["glm-4.6", 131_072],
];

/**
 * The completion cap for a model the table does not know: the largest limit in it. An unknown
 * model may be a new one with a large output, so the cap errs high; it still stops the absurd.
 */
export const DEFAULT_OUTPUT_CAP = Math.max(...OUTPUT_LIMITS.map(([, limit]) => limit));

const byLength = [...OUTPUT_LIMITS].sort((a, b) => b[0].length - a[0].length);

/**
 * The bare model name: lower case, without a routing prefix (`models/`, `openai/`, Bedrock's
 * `us.anthropic.`…) or the `@date` of Vertex's Claude ids.
 */
function bareName(model: string): string {
  let m = model.toLowerCase();
  const slash = m.lastIndexOf("/");
  if (slash >= 0) m = m.slice(slash + 1);
  const dot = m.indexOf("anthropic.");
  if (dot >= 0) m = m.slice(dot + "anthropic.".length);
  return m;
}

const memo = new Map<string, number | null>();

/** The model's published output limit, or null when the table does not know it. */
export function outputLimit(model: string): number | null {
  let limit = memo.get(model);
  if (limit !== undefined) return limit;
  const name = bareName(model);
  limit = null;
  for (const [prefix, n] of byLength) {
    if (name.startsWith(prefix)) {
      limit = n;
      break;
    }
  }
  // Model names come from requests: the memo stays small whatever callers send.
  if (memo.size >= 1_000) memo.clear();
  memo.set(model, limit);
  return limit;
}
