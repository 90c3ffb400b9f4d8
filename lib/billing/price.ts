// Quota arithmetic. Pure and exact: every ratio is read as the decimal the admin typed (its
// shortest round-trip spelling, so 0.075 is exactly 75/1000, not the nearest double), the whole
// formula is evaluated as one exact fraction with BigInt, and the result is rounded ONCE at the
// end, half up (x.5 → x+1). new-api rounded the completion part separately first and worked in
// float64, so its totals could drift by a unit; these cannot.
//
// Units: model ratio 1 = $0.002 / 1K tokens at the default QuotaPerUnit of 500 000 quota per US$1,
// i.e. ratio 1 charges 1 quota per token. Per-call prices (ModelPrice, US$) are turned into quota
// with the pricing's quotaPerUnit, the admin's QuotaPerUnit option (its default when absent).
import { OPTION_REGISTRY } from "@/lib/options/registry";
import type { Usage } from "./usage";
import type { Pricing } from "./ratios";

/** The QuotaPerUnit option's default, for a pricing built without the options (tests, the price list). */
export const QUOTA_PER_UNIT = OPTION_REGISTRY.QuotaPerUnit.default;
/** Tokens reserved for the completion when the request sets no max_tokens (new-api's PreConsumedQuota). */
export const PRE_CONSUMED_TOKENS = 500;

/**
 * A ratio or price as a person writes it: no float noise, at most 6 decimals (0.075 stays 0.075).
 * Every place that shows one (the log row's content line, its expanded billing) uses this, so
 * the same number reads the same everywhere.
 */
export function plain(v: number): string {
  if (!Number.isFinite(v)) return "0";
  return String(Number(v.toFixed(6)));
}

// ---------------------------------------------------------------------------------------------
// Exact decimals
// ---------------------------------------------------------------------------------------------

interface Rat {
  n: bigint;
  d: bigint;
}

const ZERO: Rat = { n: 0n, d: 1n };
const ratCache = new Map<number, Rat>();

/** A finite non-negative number as the exact decimal fraction of its shortest spelling. */
export function decimalToRat(x: number): Rat {
  if (!Number.isFinite(x) || x <= 0) return ZERO;
  const cached = ratCache.get(x);
  if (cached) return cached;
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(x));
  if (!m) return ZERO;
  const frac = m[2] ?? "";
  const exp = (m[3] ? Number(m[3]) : 0) - frac.length;
  let n = BigInt(m[1] + frac);
  let d = 1n;
  if (exp >= 0) n *= 10n ** BigInt(exp);
  else d = 10n ** BigInt(-exp);
  const r = { n, d };
  if (ratCache.size < 4096) ratCache.set(x, r);
  return r;
}

const int = (x: number): Rat => ({ n: BigInt(Math.max(0, Math.floor(x))), d: 1n });
const mul = (a: Rat, b: Rat): Rat => ({ n: a.n * b.n, d: a.d * b.d });
const add = (a: Rat, b: Rat): Rat => (a.d === b.d ? { n: a.n + b.n, d: a.d } : { n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const isZero = (a: Rat) => a.n === 0n;

/** Round half up to a non-negative integer. */
function roundHalfUp(a: Rat): number {
  const q = (2n * a.n + a.d) / (2n * a.d);
  return q > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(q);
}

/** The quota for a non-zero multiplier is at least 1; a zero multiplier (free model/group) is 0. */
function finalQuota(total: Rat, multiplier: Rat): number {
  if (isZero(multiplier)) return 0;
  return Math.max(1, roundHalfUp(total));
}

// ---------------------------------------------------------------------------------------------
// Log breakdown
// ---------------------------------------------------------------------------------------------

/** What the consume log's `other` JSON records about the price (new-api's field names). */
export interface PriceBreakdown {
  model_ratio: number;
  completion_ratio: number;
  group_ratio: number;
  /** US$ per call; -1 when ratio-billed. */
  model_price: number;
  cache_tokens?: number;
  cache_ratio?: number;
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  audio?: true;
  audio_ratio?: number;
  audio_completion_ratio?: number;
  audio_input?: number;
  audio_output?: number;
  text_input?: number;
  text_output?: number;
  image?: true;
  image_size?: string;
  image_quality?: string;
  image_n?: number;
  image_size_ratio?: number;
  image_quality_ratio?: number;
  /** Unknown model billed at the default ratio (self-use mode). */
  default_ratio?: true;
}

const BASE_KEYS = new Set(["model_ratio", "completion_ratio", "group_ratio", "model_price", "default_ratio"]);
const baseJson = new WeakMap<Pricing, string>();

/**
 * A breakdown as JSON without its closing brace, for more keys to follow. The part every
 * breakdown of one pricing shares is serialised once: JSON.stringify costs ~0.1 µs per key here,
 * and a consume log row is written for every request.
 */
export function breakdownJsonOpen(p: Pricing, b: PriceBreakdown): string {
  let out = baseJson.get(p);
  if (out === undefined) baseJson.set(p, (out = JSON.stringify(baseBreakdown(p)).slice(0, -1)));
  for (const key in b) {
    const value = b[key as keyof PriceBreakdown];
    if (!BASE_KEYS.has(key) && value !== undefined) out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return out;
}

export interface QuotaResult {
  quota: number;
  breakdown: PriceBreakdown;
}

function baseBreakdown(p: Pricing): PriceBreakdown {
  const b: PriceBreakdown = {
    model_ratio: p.modelRatio,
    completion_ratio: p.completionRatio,
    group_ratio: p.groupRatio,
    model_price: p.kind === "price" ? p.modelPrice : -1,
  };
  if (p.usedDefaultRatio) b.default_ratio = true;
  return b;
}

// ---------------------------------------------------------------------------------------------
// Formulas
// ---------------------------------------------------------------------------------------------

/**
 * Quota of a token-billed request (chat, completions, embeddings, moderations, rerank, STT, and
 * TTS with characters as prompt tokens). Pass usage through `clampUsage` first.
 *
 * Ratio pricing, with uncachedText = prompt − cached − cacheWrite − audioIn and
 * textOut = completion − audioOut:
 *   quota = round( modelRatio × groupRatio × ( uncachedText + cached × cacheRatio
 *           + cacheWrite × cacheWriteRatio + audioIn × audioRatio
 *           + textOut × completionRatio + audioOut × audioRatio × audioCompletionRatio ) )
 * With no cache and no audio tokens this is new-api's (prompt + completion × completionRatio) ×
 * modelRatio × groupRatio. Minimum 1 unless modelRatio × groupRatio is 0.
 *
 * Per-call pricing (ModelPrice): quota = round(price × quotaPerUnit × groupRatio), whatever the usage.
 *
 * Worked example: gpt-4o (ratio 1.25, completion 4, cache 0.5), group 1, prompt 1117 of which
 * 1024 cached, completion 18: 1.25 × (93 + 1024 × 0.5 + 18 × 4) = 1.25 × 677 = 846.25 → 846.
 */
export function quotaForTokens(pricing: Pricing, usage: Usage): QuotaResult {
  const b = baseBreakdown(pricing);
  if (pricing.kind === "price") return quotaPerCall(pricing, int(1), b);

  const prompt = Math.max(0, Math.floor(usage.prompt_tokens));
  const completion = Math.max(0, Math.floor(usage.completion_tokens));
  const cached = Math.min(prompt, Math.max(0, Math.floor(usage.cached_tokens)));
  const cacheWrite = Math.min(prompt - cached, Math.max(0, Math.floor(usage.cache_write_tokens)));
  const audioIn = Math.min(prompt - cached - cacheWrite, Math.max(0, Math.floor(usage.audio_input_tokens)));
  const audioOut = Math.min(completion, Math.max(0, Math.floor(usage.audio_output_tokens)));
  const textIn = prompt - cached - cacheWrite - audioIn;
  const textOut = completion - audioOut;

  const audioRatio = decimalToRat(pricing.audioRatio);
  let sum = int(textIn);
  if (cached > 0) sum = add(sum, mul(int(cached), decimalToRat(pricing.cacheRatio)));
  if (cacheWrite > 0) sum = add(sum, mul(int(cacheWrite), decimalToRat(pricing.cacheWriteRatio)));
  if (audioIn > 0) sum = add(sum, mul(int(audioIn), audioRatio));
  if (textOut > 0) sum = add(sum, mul(int(textOut), decimalToRat(pricing.completionRatio)));
  if (audioOut > 0) sum = add(sum, mul(int(audioOut), mul(audioRatio, decimalToRat(pricing.audioCompletionRatio))));

  const multiplier = mul(decimalToRat(pricing.modelRatio), decimalToRat(pricing.groupRatio));
  const quota = finalQuota(mul(sum, multiplier), multiplier);

  if (cached > 0) {
    b.cache_tokens = cached;
    b.cache_ratio = pricing.cacheRatio;
  }
  if (cacheWrite > 0) {
    b.cache_creation_tokens = cacheWrite;
    b.cache_creation_ratio = pricing.cacheWriteRatio;
  }
  if (audioIn > 0 || audioOut > 0) {
    b.audio = true;
    b.audio_ratio = pricing.audioRatio;
    b.audio_completion_ratio = pricing.audioCompletionRatio;
    b.audio_input = audioIn;
    b.audio_output = audioOut;
    b.text_input = prompt - audioIn;
    b.text_output = textOut;
  }
  return { quota, breakdown: b };
}

/** Quota per US$1 of a pricing, as an exact fraction. */
const perUnit = (pricing: Pricing): Rat => decimalToRat(pricing.quotaPerUnit ?? QUOTA_PER_UNIT);

function quotaPerCall(pricing: Pricing, factor: Rat, b: PriceBreakdown): QuotaResult {
  const multiplier = mul(decimalToRat(pricing.modelPrice), decimalToRat(pricing.groupRatio));
  const total = mul(mul(multiplier, factor), perUnit(pricing));
  return { quota: finalQuota(total, mul(multiplier, factor)), breakdown: b };
}

/**
 * Quota of a task billed per call or per unit (lib/tasks: a Midjourney or Suno submit is 1 unit, a
 * video is its seconds): round(ModelPrice × units × groupRatio × quotaPerUnit). Per-call pricing only.
 */
export function quotaForUnits(pricing: Pricing, units: number): QuotaResult {
  if (pricing.kind !== "price") throw new Error("quotaForUnits needs a per-call price");
  return quotaPerCall(pricing, decimalToRat(units), baseBreakdown(pricing));
}

/** Quota of a TTS request: `tts*` models bill input characters as prompt tokens. */
export function quotaForSpeech(pricing: Pricing, characters: number): QuotaResult {
  return quotaForTokens(pricing, {
    prompt_tokens: characters,
    completion_tokens: 0,
    total_tokens: characters,
    cached_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    audio_input_tokens: 0,
    audio_output_tokens: 0,
  });
}

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

/** Size factors (inventory §4.2): 256² 0.4, 512² 0.45, 1024² 1, the 1792 sizes 2; others 1. */
export function imageSizeRatio(size: string | undefined): number {
  switch ((size ?? "1024x1024").toLowerCase()) {
    case "256x256":
      return 0.4;
    case "512x512":
      return 0.45;
    case "1024x1792":
    case "1792x1024":
      return 2;
    default:
      return 1;
  }
}

/** dall-e-3 `hd`: ×2 at 1024×1024, ×1.5 at the 1792 sizes; any other model/quality 1. */
export function imageQualityRatio(model: string, quality: string | undefined, size: string | undefined): number {
  if (!model.startsWith("dall-e-3") || (quality ?? "").toLowerCase() !== "hd") return 1;
  const s = (size ?? "1024x1024").toLowerCase();
  return s === "1024x1792" || s === "1792x1024" ? 1.5 : 2;
}

/** US$ assumed per image for a ratio-priced image model (new-api: 0.0025 × modelRatio). */
export const IMAGE_PRICE_PER_RATIO = 0.0025;

/**
 * Quota of an image generation: round(price × sizeRatio × qualityRatio × n × quotaPerUnit × groupRatio),
 * price = ModelPrice, or 0.0025 × modelRatio for a ratio-priced model. Minimum 1 unless free.
 *
 * Worked example: dall-e-3 at $0.04, 1024×1792, hd, n = 2, group 1:
 * 0.04 × 2 × 1.5 × 2 × 500 000 = 120 000.
 */
export function quotaForImages(pricing: Pricing, req: { size?: string; quality?: string; n?: number }): QuotaResult {
  const n = Number.isInteger(req.n) && (req.n as number) > 0 ? (req.n as number) : 1;
  const sizeRatio = imageSizeRatio(req.size);
  const qualityRatio = imageQualityRatio(pricing.model, req.quality, req.size);
  const b = baseBreakdown(pricing);
  b.image = true;
  b.image_size = req.size ?? "1024x1024";
  if (req.quality) b.image_quality = req.quality;
  b.image_n = n;
  b.image_size_ratio = sizeRatio;
  b.image_quality_ratio = qualityRatio;
  const price =
    pricing.kind === "price"
      ? decimalToRat(pricing.modelPrice)
      : mul(decimalToRat(IMAGE_PRICE_PER_RATIO), decimalToRat(pricing.modelRatio));
  const multiplier = mul(price, decimalToRat(pricing.groupRatio));
  const total = mul(mul(mul(mul(multiplier, decimalToRat(sizeRatio)), decimalToRat(qualityRatio)), int(n)), perUnit(pricing));
  return { quota: finalQuota(total, multiplier), breakdown: b };
}

// ---------------------------------------------------------------------------------------------
// Pre-consumption
// ---------------------------------------------------------------------------------------------

export interface ReserveInput {
  /** Locally counted prompt tokens (characters for TTS). */
  promptTokens: number;
  /** The request's max_tokens or max_completion_tokens, if any. */
  maxTokens?: number | null;
  /** Completion tokens assumed when maxTokens is absent (default PRE_CONSUMED_TOKENS = 500). */
  preConsumedTokens?: number;
  /** Images: number of images (per-call and image pricing multiply by it). */
  n?: number;
  /** Chat and completions: choices asked for (the request's `n`); each has its own completion budget. */
  choices?: number;
}

/**
 * The amount to reserve before calling the upstream (settled against the real quota after).
 * Ratio: round(modelRatio × groupRatio × (prompt + completionBudget × completionRatio)), where
 * completionBudget = maxTokens, or PRE_CONSUMED_TOKENS when the request sets none, once per
 * choice (`n` choices are n completions, each up to max_tokens). Unlike
 * new-api (which reserved just 500 tokens when max_tokens was absent, ignoring the prompt), the
 * known prompt is always included, and the completion part is priced at the completion ratio.
 * Per-call: round(price × quotaPerUnit × groupRatio × n).
 *
 * Worked example: gpt-4o (1.25, completion 4), group 1, prompt 1000, max_tokens 200:
 * 1.25 × (1000 + 200 × 4) = 2250.
 */
export function estimateReserve(pricing: Pricing, input: ReserveInput): number {
  const n = Number.isInteger(input.n) && (input.n as number) > 0 ? (input.n as number) : 1;
  if (pricing.kind === "price") return quotaPerCall(pricing, int(n), baseBreakdown(pricing)).quota;
  const max = input.maxTokens;
  const perChoice = typeof max === "number" && Number.isFinite(max) && max > 0 ? max : (input.preConsumedTokens ?? PRE_CONSUMED_TOKENS);
  const choices = Number.isSafeInteger(input.choices) && (input.choices as number) > 1 ? (input.choices as number) : 1;
  const completion = mul(int(perChoice), int(choices));
  const sum = add(int(input.promptTokens), mul(completion, decimalToRat(pricing.completionRatio)));
  const multiplier = mul(decimalToRat(pricing.modelRatio), decimalToRat(pricing.groupRatio));
  return finalQuota(mul(sum, multiplier), multiplier);
}

// ---------------------------------------------------------------------------------------------
// Usage sanity
// ---------------------------------------------------------------------------------------------

export const DEFAULT_CONTEXT_LIMIT = 2_000_000;
export const DEFAULT_ABSURD_FACTOR = 10;

export interface ClampOptions {
  /** A generous context size; values above contextLimit × factor are absurd. Default 2 000 000. */
  contextLimit?: number;
  /** Default 10. */
  factor?: number;
  /**
   * Locally counted usage. Absurd or invalid prompt/completion values are replaced by these
   * (capped at the limit) instead of the limit itself.
   */
  fallback?: Partial<Pick<Usage, "prompt_tokens" | "completion_tokens">>;
}

export interface ClampFlags {
  nonNumeric: string[];
  negative: string[];
  fractional: string[];
  absurd: string[];
  /** Detail counts larger than the totals they are part of (cached > prompt…). */
  inconsistent: string[];
}

export interface ClampResult {
  usage: Usage;
  flags: ClampFlags;
  clamped: boolean;
}

const NO_FLAGS: ClampFlags = Object.freeze({
  nonNumeric: Object.freeze([]) as unknown as string[],
  negative: Object.freeze([]) as unknown as string[],
  fractional: Object.freeze([]) as unknown as string[],
  absurd: Object.freeze([]) as unknown as string[],
  inconsistent: Object.freeze([]) as unknown as string[],
});

/** A count clampUsage would keep as it is: absent (0) or a whole number from 0 to `limit`. */
function plainCount(v: unknown, limit: number): number {
  if (v === undefined || v === null) return 0;
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= limit ? v : -1;
}

/** The usage as clampUsage would return it when it changes nothing, else null. */
function cleanUsage(u: Partial<Record<keyof Usage, unknown>>, limit: number): Usage | null {
  const prompt = plainCount(u.prompt_tokens, limit);
  const completion = plainCount(u.completion_tokens, limit);
  const cached = plainCount(u.cached_tokens, limit);
  const cacheWrite = plainCount(u.cache_write_tokens, limit);
  const reasoning = plainCount(u.reasoning_tokens, limit);
  const audioIn = plainCount(u.audio_input_tokens, limit);
  const audioOut = plainCount(u.audio_output_tokens, limit);
  if (prompt < 0 || completion < 0 || cached < 0 || cacheWrite < 0 || reasoning < 0 || audioIn < 0 || audioOut < 0) return null;
  if (cached > prompt || cacheWrite > prompt - cached || audioIn > prompt - cached - cacheWrite) return null;
  if (reasoning > completion || audioOut > completion) return null;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: cached,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: reasoning,
    audio_input_tokens: audioIn,
    audio_output_tokens: audioOut,
  };
}

const FIELDS = [
  "prompt_tokens",
  "completion_tokens",
  "cached_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "audio_input_tokens",
  "audio_output_tokens",
] as const;

/**
 * Make upstream-reported usage safe to bill: non-numbers, NaN and negatives become the local
 * fallback (or 0), fractions are floored, values beyond contextLimit × factor are replaced by the
 * local fallback (capped at that limit) or the limit itself, detail counts are capped by the
 * totals they belong to, and total_tokens is recomputed. Nothing can end above the limit and no
 * reported number is ever raised, so a hostile upstream cannot grow the quota. `flags` says what
 * was changed (log it, e.g. as other.usage_clamped).
 */
export function clampUsage(usage: Partial<Record<keyof Usage, unknown>>, opts: ClampOptions = {}): ClampResult {
  const limit = Math.floor((opts.contextLimit ?? DEFAULT_CONTEXT_LIMIT) * (opts.factor ?? DEFAULT_ABSURD_FACTOR));
  // The usual case, every relayed request: sane numbers, nothing to change or report.
  const clean = cleanUsage(usage, limit);
  if (clean) return { usage: clean, flags: NO_FLAGS, clamped: false };
  const flags: ClampFlags = { nonNumeric: [], negative: [], fractional: [], absurd: [], inconsistent: [] };
  const out: Record<string, number> = {};
  const fallbackFor = (f: string): number | undefined => {
    const v =
      f === "prompt_tokens" ? opts.fallback?.prompt_tokens : f === "completion_tokens" ? opts.fallback?.completion_tokens : undefined;
    return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.min(Math.floor(v), limit) : undefined;
  };
  for (const f of FIELDS) {
    const raw = usage[f];
    let v: number;
    if (raw === undefined || raw === null) v = 0;
    else if (typeof raw !== "number" || !Number.isFinite(raw)) {
      flags.nonNumeric.push(f);
      v = fallbackFor(f) ?? 0;
    } else if (raw < 0) {
      flags.negative.push(f);
      v = fallbackFor(f) ?? 0;
    } else if (raw > limit) {
      flags.absurd.push(f);
      v = fallbackFor(f) ?? limit;
    } else if (!Number.isInteger(raw)) {
      flags.fractional.push(f);
      v = Math.floor(raw);
    } else v = raw;
    out[f] = v;
  }
  const cap = (f: string, max: number) => {
    if (out[f] > max) {
      out[f] = Math.max(0, max);
      flags.inconsistent.push(f);
    }
  };
  cap("cached_tokens", out.prompt_tokens);
  cap("cache_write_tokens", out.prompt_tokens - out.cached_tokens);
  cap("audio_input_tokens", out.prompt_tokens - out.cached_tokens - out.cache_write_tokens);
  cap("reasoning_tokens", out.completion_tokens);
  cap("audio_output_tokens", out.completion_tokens);
  const result: Usage = {
    prompt_tokens: out.prompt_tokens,
    completion_tokens: out.completion_tokens,
    total_tokens: out.prompt_tokens + out.completion_tokens,
    cached_tokens: out.cached_tokens,
    cache_write_tokens: out.cache_write_tokens,
    reasoning_tokens: out.reasoning_tokens,
    audio_input_tokens: out.audio_input_tokens,
    audio_output_tokens: out.audio_output_tokens,
  };
  const clamped = Object.values(flags).some((a: string[]) => a.length > 0);
  return { usage: result, flags, clamped };
}
