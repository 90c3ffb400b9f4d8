// Bounds on what an upstream may bill. A vendor's usage is trusted up to what the request could
// have cost: completion tokens up to what it could produce, prompt tokens up to a generous
// multiple of what the relay sent. Beyond that the number is a vendor's bug or a hostile
// upstream (one answered `completion_tokens: 1e12` and drove a balance to −19 M), and the call is
// billed at the bound and flagged (the log row's `other.usage_anomaly`, with the raw numbers).
//
// With both bounds in place a call can never cost more than its bounded usage priced
// (quotaForTokens grows with every count), which is what README's billing section calls the
// overrun bound.
import type { Usage } from "./usage";
import { DEFAULT_OUTPUT_CAP, outputLimit } from "./output-limits";

/**
 * Tokens a vendor may add to a prompt that the relay never sees: Anthropic's tool-use system
 * prompt (~350 tokens) and its computer-use tools (~700 each), role and image framing. Added to
 * the prompt bound so an honest short call is never flagged.
 */
export const PROMPT_ALLOWANCE = 2_048;

/** Margin on the local prompt count: other vendors' tokenizers (Claude, Gemini, Qwen, GLM) count the same text differently, by up to ~2× on CJK or code. */
export const PROMPT_MARGIN = 4;

/**
 * The prompt bound of one call, in two parts: `promptQuickBound` is cheap; `promptBound` may count
 * the prompt locally, so it is read only when the vendor's number is over the quick one.
 * (The relay's CallContext implements it, so bounding allocates nothing.)
 */
export interface PromptBounds {
  /** Below this no count is needed: bytes sent + allowance (see promptQuickBound). */
  readonly promptQuickBound: number;
  /** The prompt bound itself (≥ the quick one), or Infinity when the request has parts the relay cannot size. */
  readonly promptBound: number;
}

/** What a clamped call records in its log row (`other.usage_anomaly`). */
export interface UsageAnomaly {
  /** The vendor's numbers, as reported. */
  prompt_tokens: number;
  completion_tokens: number;
  /** The bounds that applied (the prompt bound only when it was computed). */
  prompt_limit?: number;
  completion_limit: number;
}

/**
 * Completion tokens a request could produce: its max_tokens (Chat `max_completion_tokens` or
 * `max_tokens`, Responses `max_output_tokens`; Anthropic's and Gemini's arrive as `max_tokens` in
 * the canonical body) per choice, else the model's published output limit (output-limits.ts),
 * else DEFAULT_OUTPUT_CAP. Every choice (`n`, legacy `best_of`) is a completion of its own.
 */
export function completionBound(json: Record<string, unknown> | null, model: string): number {
  let max: unknown;
  let choices = 1;
  if (json) {
    max = json.max_completion_tokens ?? json.max_tokens ?? json.max_output_tokens;
    const n = json.n;
    const bestOf = json.best_of;
    if (typeof n === "number" && Number.isSafeInteger(n) && n > 1) choices = n;
    if (typeof bestOf === "number" && Number.isSafeInteger(bestOf) && bestOf > choices) choices = bestOf;
  }
  const perChoice = typeof max === "number" && Number.isSafeInteger(max) && max > 0 ? max : (outputLimit(model) ?? DEFAULT_OUTPUT_CAP);
  return perChoice * choices;
}

/**
 * The bound below which a vendor's prompt count is accepted without counting anything: the bytes
 * the relay sent, plus the allowance. Every token of text a BPE tokenizer produces stands for at
 * least one byte of it, and the body's JSON syntax only adds bytes, so an honest count of the
 * text sent is never over the bytes sent. Images, audio and files sent inline (base64) are many
 * bytes per token too. So on a normal call this is one comparison and the prompt is never counted;
 * a count over it is either an image sent by URL (sized by the local count) or an anomaly.
 */
export function promptQuickBound(bodyBytes: number): number {
  return bodyBytes + PROMPT_ALLOWANCE;
}

/** The full prompt bound: the local count × PROMPT_MARGIN, at least the quick bound. */
export function promptBound(bodyBytes: number, localCount: number): number {
  const counted = localCount * PROMPT_MARGIN + PROMPT_ALLOWANCE;
  const quick = promptQuickBound(bodyBytes);
  return Math.max(counted, quick);
}

/**
 * Applies the bounds to a usage already made consistent by clampUsage. Returns null when the usage
 * is within them (the usual case: two comparisons, nothing allocated, nothing counted), else the
 * usage billed at the bounds (detail counts capped by their totals again) and the anomaly to log,
 * with `raw`, the vendor's numbers before any clamping.
 */
export function boundUsage(
  usage: Usage,
  completionLimit: number,
  prompt: PromptBounds,
  raw: Pick<Usage, "prompt_tokens" | "completion_tokens"> = usage,
): { usage: Usage; anomaly: UsageAnomaly } | null {
  const completionOver = usage.completion_tokens > completionLimit;
  const promptLimit = usage.prompt_tokens > prompt.promptQuickBound ? prompt.promptBound : undefined;
  const promptOver = promptLimit !== undefined && usage.prompt_tokens > promptLimit;
  if (!completionOver && !promptOver) return null;
  const promptTokens = promptOver ? (promptLimit as number) : usage.prompt_tokens;
  const completion = completionOver ? completionLimit : usage.completion_tokens;
  const cached = Math.min(usage.cached_tokens, promptTokens);
  const cacheWrite = Math.min(usage.cache_write_tokens, promptTokens - cached);
  const anomaly = usageAnomaly(raw, completionLimit, promptLimit);
  return {
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completion,
      total_tokens: promptTokens + completion,
      cached_tokens: cached,
      cache_write_tokens: cacheWrite,
      audio_input_tokens: Math.min(usage.audio_input_tokens, promptTokens - cached - cacheWrite),
      reasoning_tokens: Math.min(usage.reasoning_tokens, completion),
      audio_output_tokens: Math.min(usage.audio_output_tokens, completion),
    },
    anomaly,
  };
}

/** The anomaly record of a call: the vendor's numbers and the bounds that applied. */
export function usageAnomaly(
  raw: Pick<Usage, "prompt_tokens" | "completion_tokens">,
  completionLimit: number,
  promptLimit?: number,
): UsageAnomaly {
  const anomaly: UsageAnomaly = {
    prompt_tokens: raw.prompt_tokens,
    completion_tokens: raw.completion_tokens,
    completion_limit: completionLimit,
  };
  if (promptLimit !== undefined && Number.isFinite(promptLimit)) anomaly.prompt_limit = promptLimit;
  return anomaly;
}
