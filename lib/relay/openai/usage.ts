// Reading a vendor's `usage` object into the normalised Usage. Pure; no clamping here (billing
// clamps with clampUsage), but non-numeric fields read as 0 so a garbage field cannot poison sums.
import { isObj, type Obj } from "@/lib/obj";
import { emptyUsage, type Usage } from "@/lib/billing/usage";

/** A finite number as-is (clampUsage deals with negatives, fractions and absurd sizes), else 0. */
function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/**
 * Normalise one `usage` object. Understands:
 * - OpenAI chat/completions/embeddings: prompt_tokens, completion_tokens, total_tokens,
 *   prompt_tokens_details.{cached_tokens,audio_tokens}, completion_tokens_details.{reasoning_tokens,audio_tokens};
 * - OpenAI responses/audio style: input_tokens, output_tokens, input_tokens_details…;
 * - DeepSeek: prompt_cache_hit_tokens; Moonshot and others: top-level cached_tokens;
 * - Anthropic-style cache_read_input_tokens / cache_creation_input_tokens (added to prompt);
 * - cache writes in prompt_tokens_details.cache_write_tokens (the Claude adapters' OpenAI shape).
 * Returns null when there is no usage object or it carries no token counts at all.
 */
export function normalizeUsage(raw: unknown): Usage | null {
  if (!isObj(raw)) return null;
  const u = emptyUsage();
  const hasPrompt = "prompt_tokens" in raw || "input_tokens" in raw;
  const hasCompletion = "completion_tokens" in raw || "output_tokens" in raw;
  if (!hasPrompt && !hasCompletion && !("total_tokens" in raw)) return null;

  const cacheRead = num(raw.cache_read_input_tokens);
  const cacheWrite = num(raw.cache_creation_input_tokens);
  if ("prompt_tokens" in raw) u.prompt_tokens = num(raw.prompt_tokens);
  else u.prompt_tokens = num(raw.input_tokens) + cacheRead + cacheWrite; // Anthropic input excludes cache
  u.completion_tokens = "completion_tokens" in raw ? num(raw.completion_tokens) : num(raw.output_tokens);
  if (!hasPrompt && !hasCompletion) {
    // Rerank/embedding vendors (Jina) that only report a total: it is all input.
    u.prompt_tokens = num(raw.total_tokens);
  }

  const pd = isObj(raw.prompt_tokens_details)
    ? raw.prompt_tokens_details
    : isObj(raw.input_tokens_details)
      ? raw.input_tokens_details
      : null;
  const cd = isObj(raw.completion_tokens_details)
    ? raw.completion_tokens_details
    : isObj(raw.output_tokens_details)
      ? raw.output_tokens_details
      : null;
  u.cached_tokens = num(pd?.cached_tokens) || num(raw.prompt_cache_hit_tokens) || num(raw.cached_tokens) || cacheRead;
  u.cache_write_tokens = cacheWrite || num(pd?.cache_write_tokens) || num(pd?.cache_creation_tokens) || num(pd?.cached_creation_tokens);
  u.audio_input_tokens = num(pd?.audio_tokens);
  u.reasoning_tokens = num(cd?.reasoning_tokens);
  u.audio_output_tokens = num(cd?.audio_tokens);
  u.total_tokens = u.prompt_tokens + u.completion_tokens;
  return u;
}

/** True when a usage object reports any tokens (an all-zero usage counts as "no usage"). */
export function hasTokens(u: Usage | null | undefined): u is Usage {
  return !!u && (u.prompt_tokens > 0 || u.completion_tokens > 0);
}

/**
 * OpenAI's chat `usage` object, the one builder of it. Two needs:
 * - a converter's counts (`openAIUsage(prompt, completion, total?)`): the three totals, `total`
 *   the vendor's own when it reports one, else the sum;
 * - a normalised Usage (`openAIUsage(usage)`, what the relay bills): with the breakdown
 *   (cache, audio, reasoning) that normalizeUsage reads back the same.
 */
export function openAIUsage(prompt: number, completion: number, total?: number): Obj;
export function openAIUsage(u: Usage): Obj;
export function openAIUsage(u: Usage | number, completion = 0, total?: number): Obj {
  if (typeof u === "number") return { prompt_tokens: u, completion_tokens: completion, total_tokens: total ?? u + completion };
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: {
      cached_tokens: u.cached_tokens,
      cache_creation_tokens: u.cache_write_tokens,
      audio_tokens: u.audio_input_tokens,
    },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens, audio_tokens: u.audio_output_tokens },
  };
}
