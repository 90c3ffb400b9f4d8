// Which price applies to a request: per-call price or token ratios, and every ratio the quota
// formula needs. Pure: the option maps (ModelRatio, ModelPrice, CompletionRatio, CacheRatio,
// GroupRatio…) are parsed by lib/options and passed in.
//
// Lookup rules, for every option map:
// - an exact key wins; otherwise keys ending in "*" are prefix patterns and the longest matching
//   prefix wins ("gpt-4-gizmo-*" covers every gizmo, "claude-3-5-sonnet*" every dated snapshot);
// - entries that are not finite, non-negative numbers are ignored (treated as absent).
//
// Unknown models (the ONE rule): a model with neither a ModelPrice nor a ModelRatio entry is
// REJECTED with `model_price_error`, unless SelfUseModeEnabled is on, in which case it is billed at
// ratio UNKNOWN_MODEL_RATIO = 37.5 (new-api HEAD's value) and flagged `usedDefaultRatio`. new-api
// REF silently billed unknown models at ratio 30, which let a typo or a new model bill at an
// arbitrary price; HEAD switched to rejection (issue #801), and so does Qiao.
//
// Completion ratios: the admin's CompletionRatio entry wins over the built-in table (new-api let
// its hard-coded rules override the configuration, so admins could not correct them).

export type RatioMap = Readonly<Record<string, number>>;

export interface PricingOptions {
  modelRatio: RatioMap;
  /** US$ per call; a model listed here is billed per call even for chat. */
  modelPrice: RatioMap;
  completionRatio: RatioMap;
  groupRatio: RatioMap;
  /** Price of a cache-read input token relative to a normal input token. */
  cacheRatio?: RatioMap;
  /** Price of a cache-write input token relative to a normal input token. */
  cacheWriteRatio?: RatioMap;
  /** Price of an audio input token relative to a text input token. */
  audioRatio?: RatioMap;
  /** Price of an audio output token relative to an audio input token. */
  audioCompletionRatio?: RatioMap;
  selfUseModeEnabled?: boolean;
  /** Quota per US$1 (the QuotaPerUnit option) for per-call prices; default QUOTA_PER_UNIT = 500 000. */
  quotaPerUnit?: number;
}

/** What decides whether a model has a price at all (isModelPriced). */
export type PriceTable = Pick<PricingOptions, "modelRatio" | "modelPrice" | "selfUseModeEnabled">;

export type PricingKind = "ratio" | "price";

export interface Pricing {
  kind: PricingKind;
  model: string;
  /** ModelRatio (0 when billed per call). */
  modelRatio: number;
  /** ModelPrice in US$ per call, -1 when ratio-billed (the log's convention). */
  modelPrice: number;
  completionRatio: number;
  groupRatio: number;
  cacheRatio: number;
  cacheWriteRatio: number;
  audioRatio: number;
  audioCompletionRatio: number;
  /** Unknown model billed at UNKNOWN_MODEL_RATIO because self-use mode is on. */
  usedDefaultRatio: boolean;
  /** The group has no GroupRatio entry; billed at 1. */
  unknownGroup: boolean;
  /** Quota per US$1 for per-call prices (the QuotaPerUnit option); absent: 500 000. */
  quotaPerUnit?: number;
}

export interface PricingError {
  status: number;
  code: "model_price_error";
  message: string;
}

export type PricingResult = { ok: true; pricing: Pricing } | { ok: false; error: PricingError };

export const UNKNOWN_MODEL_RATIO = 37.5;

// ---------------------------------------------------------------------------------------------
// Option map lookups with "*" prefix patterns. The sorted pattern list is cached per map object
// (a WeakMap, so replaced option maps are collected).
// ---------------------------------------------------------------------------------------------

const patternCache = new WeakMap<RatioMap, Array<[string, number]>>();

function valid(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0;
}

function patternsOf(map: RatioMap): Array<[string, number]> {
  let p = patternCache.get(map);
  if (!p) {
    p = [];
    for (const [k, v] of Object.entries(map)) if (k.endsWith("*") && valid(v)) p.push([k.slice(0, -1), v]);
    p.sort((a, b) => b[0].length - a[0].length);
    patternCache.set(map, p);
  }
  return p;
}

/** The map's value for a model: exact key, else the longest "*" prefix pattern, else undefined. */
export function lookupRatio(map: RatioMap | undefined, model: string): number | undefined {
  if (!map) return undefined;
  const exact = Object.hasOwn(map, model) ? map[model] : undefined;
  if (valid(exact)) return exact;
  for (const [prefix, v] of patternsOf(map)) if (model.startsWith(prefix)) return v;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Built-in defaults
// ---------------------------------------------------------------------------------------------

/**
 * new-api's completion-ratio rules (inventory §4.1), plus entries for later OpenAI models that
 * the old rules priced wrongly (gpt-4.1: 4, gpt-4.5: 2, gpt-5: 8, o1/o3/o4: 4, every Claude: 5).
 * new-api's handful of fixed llama values are not carried over (they default to 1).
 */
export function builtinCompletionRatio(model: string): number {
  const m = model.toLowerCase();
  if (m.includes("-gizmo-")) return m.startsWith("gpt-4o-gizmo") ? 3 : 2;
  if (m === "gpt-4-all") return 2;
  if (m.startsWith("gpt-3.5")) {
    if (m === "gpt-3.5-turbo" || m.endsWith("0125")) return 3;
    if (m.endsWith("1106")) return 2;
    return 4 / 3;
  }
  if (m.startsWith("gpt-4.1")) return 4;
  if (m.startsWith("gpt-4.5")) return 2;
  if (m.startsWith("gpt-4o")) return m === "gpt-4o-2024-05-13" ? 3 : 4;
  if (m.startsWith("gpt-4") && !m.endsWith("-all")) {
    if (m.startsWith("gpt-4-turbo") || m.endsWith("preview")) return 3;
    return 2;
  }
  if (m.startsWith("chatgpt-4o")) return 3;
  if (/^o[134](-|$)/.test(m)) return 4;
  if (m.startsWith("gpt-5")) return 8;
  if (m.includes("claude-instant-1") || m.includes("claude-2")) return 3;
  if (m.includes("claude")) return 5;
  if (m.startsWith("mistral-")) return 3;
  if (m.startsWith("gemini-")) return 4;
  if (m.startsWith("command-r")) {
    if (m === "command-r-08-2024" || m === "command-r-plus-08-2024") return 4;
    if (m.startsWith("command-r-plus")) return 5;
    return 3;
  }
  if (m.startsWith("command")) return 2;
  if (m.startsWith("deepseek")) return 2;
  if (/^ernie-(speed|lite|character|functions)/.test(m)) return 2;
  return 1;
}

/**
 * Cache-read ratios (new-api HEAD): 0.5 for gpt-4o, o1, o3-mini, gpt-4.5; 0.25 for DeepSeek;
 * 0.1 for Claude. Added: gpt-4.1, o3, o4-mini 0.25; gpt-5 0.1; Gemini 2.5 and later 0.1 (Google
 * bills implicit and explicit cache hits at a tenth of the input price from 2.5 on:
 * ai.google.dev/gemini-api/docs/caching), Gemini 2.0 0.25. Anything else 1 (no discount unless the
 * admin configures one: Qwen, GLM, Kimi and others report cached tokens, at prices that differ by
 * model and region).
 */
export function builtinCacheRatio(model: string): number {
  const m = model.toLowerCase();
  if (m.startsWith("gpt-4.1") || m === "o3" || m.startsWith("o3-2") || m.startsWith("o4-mini")) return 0.25;
  if (m.startsWith("gpt-4o") || m.startsWith("chatgpt-4o") || m.startsWith("o1") || m.startsWith("o3-mini") || m.startsWith("gpt-4.5"))
    return 0.5;
  if (m.startsWith("gpt-5")) return 0.1;
  if (m.startsWith("deepseek")) return 0.25;
  if (m.startsWith("gemini-2.0")) return 0.25;
  if (/^gemini-([2-9]\.[5-9]|[3-9])/.test(m)) return 0.1;
  if (m.includes("claude")) return 0.1;
  return 1;
}

/** Cache-write ratios: 1.25 for Claude (5-minute cache writes), otherwise 1. */
export function builtinCacheWriteRatio(model: string): number {
  return model.toLowerCase().includes("claude") ? 1.25 : 1;
}

/** new-api's audio ratios: 40 for gpt-4o-audio*, 20 for gpt-4o-realtime* and anything else. */
export function builtinAudioRatio(model: string): number {
  return model.toLowerCase().startsWith("gpt-4o-audio") ? 40 : 20;
}

/** new-api's audio completion ratio: 2. */
export function builtinAudioCompletionRatio(_model: string): number {
  return 2;
}

// ---------------------------------------------------------------------------------------------

/**
 * Whether the relay can bill `model` at all (the unknown-model rule at the top of this file): it
 * has a ModelPrice or a ModelRatio entry, or self-use mode is on. The one test: resolvePricing
 * refuses exactly the models it refuses, and the model lists users see leave them out.
 */
export function isModelPriced(model: string, options: PriceTable): boolean {
  return (
    !!options.selfUseModeEnabled ||
    lookupRatio(options.modelPrice, model) !== undefined ||
    lookupRatio(options.modelRatio, model) !== undefined
  );
}

/**
 * Pricing of `model` for a user of `group`. Per-call price first (ModelPrice), then ModelRatio,
 * then the unknown-model rule described at the top of this file.
 */
export function resolvePricing(model: string, options: PricingOptions, group: string): PricingResult {
  if (!isModelPriced(model, options)) {
    return {
      ok: false,
      error: {
        // Not a transient failure: a 4xx stops SDKs from retrying a request that cannot succeed.
        status: 400,
        code: "model_price_error",
        message: `模型 ${model} 倍率或价格未配置，请联系管理员设置或开启自用模式 (model ${model} has no ratio or price configured)`,
      },
    };
  }
  const groupValue = lookupGroupRatio(options.groupRatio, group);
  const groupRatio = groupValue ?? 1;
  const common = {
    model,
    groupRatio,
    unknownGroup: groupValue === undefined,
    completionRatio: lookupRatio(options.completionRatio, model) ?? builtinCompletionRatio(model),
    cacheRatio: lookupRatio(options.cacheRatio, model) ?? builtinCacheRatio(model),
    cacheWriteRatio: lookupRatio(options.cacheWriteRatio, model) ?? builtinCacheWriteRatio(model),
    audioRatio: lookupRatio(options.audioRatio, model) ?? builtinAudioRatio(model),
    audioCompletionRatio: lookupRatio(options.audioCompletionRatio, model) ?? builtinAudioCompletionRatio(model),
    ...(options.quotaPerUnit !== undefined && Number.isFinite(options.quotaPerUnit) && options.quotaPerUnit > 0
      ? { quotaPerUnit: options.quotaPerUnit }
      : {}),
  };
  const price = lookupRatio(options.modelPrice, model);
  if (price !== undefined) {
    return { ok: true, pricing: { kind: "price", modelRatio: 0, modelPrice: price, usedDefaultRatio: false, ...common } };
  }
  const ratio = lookupRatio(options.modelRatio, model);
  if (ratio !== undefined) {
    return { ok: true, pricing: { kind: "ratio", modelRatio: ratio, modelPrice: -1, usedDefaultRatio: false, ...common } };
  }
  // Priced only by self-use mode.
  return { ok: true, pricing: { kind: "ratio", modelRatio: UNKNOWN_MODEL_RATIO, modelPrice: -1, usedDefaultRatio: true, ...common } };
}

/** A group's GroupRatio entry (exact name, no patterns); undefined when it has none (billed at 1). */
export function lookupGroupRatio(map: RatioMap, group: string): number | undefined {
  const v = Object.hasOwn(map, group) ? map[group] : undefined;
  return valid(v) ? v : undefined;
}
