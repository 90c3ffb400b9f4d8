// Pricing a relay call: the model's price for the caller's group (memoised per options
// snapshot, with the log row's content line), and the quota reserved before the upstream is
// asked (settle.ts charges what was actually used).
import type { OptionValues } from "@/lib/options";
import { resolvePricing, type Pricing } from "@/lib/billing/ratios";
import { estimateReserve, plain, quotaForImages } from "@/lib/billing/price";
import type { ParsedBody } from "@/lib/relay/call/call-context";
import type { RelayRequest } from "@/lib/relay/http";
import { reservePromptTokens } from "@/lib/relay/request/request-body";
import type { RelayMode } from "@/lib/relay/types";

type Priced = { result: ReturnType<typeof resolvePricing>; content: string };
/** Pricing per (group, model), per options snapshot: options objects are replaced on every change. */
const pricingMemo = new WeakMap<OptionValues, Map<string, Priced>>();

export function priceFor(options: OptionValues, model: string, group: string): Priced {
  let memo = pricingMemo.get(options);
  if (!memo) pricingMemo.set(options, (memo = new Map()));
  const key = `${group}\0${model}`;
  let hit = memo.get(key);
  if (!hit) {
    const result = resolvePricing(model, pricingOptions(options), group);
    const p = result.ok ? result.pricing : null;
    // The numbers as the row's expanded billing shows them (plain): rounding to two places here
    // made a ratio of 0.075 read 0.07 in the row and 0.075 in its breakdown.
    const content = !p
      ? ""
      : p.kind === "price"
        ? `模型价格 ${plain(p.modelPrice)}，分组倍率 ${plain(p.groupRatio)}`
        : `模型倍率 ${plain(p.modelRatio)}，补全倍率 ${plain(p.completionRatio)}，分组倍率 ${plain(p.groupRatio)}`;
    if (memo.size > 10_000) memo.clear();
    memo.set(key, (hit = { result, content }));
  }
  return hit;
}

function pricingOptions(o: OptionValues) {
  return {
    modelRatio: o.ModelRatio as Record<string, number>,
    modelPrice: o.ModelPrice as Record<string, number>,
    completionRatio: o.CompletionRatio as Record<string, number>,
    groupRatio: o.GroupRatio as Record<string, number>,
    cacheRatio: o.CacheRatio as Record<string, number>,
    selfUseModeEnabled: o.SelfUseModeEnabled as boolean,
    quotaPerUnit: o.QuotaPerUnit as number,
  };
}

/** Prompt tokens for the reservation (reservePromptTokens; computed where a large body was read). */
export function reserveTokens(mode: RelayMode, body: ParsedBody, req: RelayRequest): number {
  if (mode === "images" || mode === "transcriptions" || mode === "translations") return 0;
  if (!body.json) return mode === "speech" ? 0 : Math.ceil(req.body.length / 4);
  if (body.reserveTokens !== undefined) return body.reserveTokens;
  if (body.large) return body.large.reserveTokens;
  return reservePromptTokens(mode, body.json, req.body, body.model);
}

export function reserveFor(mode: RelayMode, pricing: Pricing, body: ParsedBody, promptTokens: number, options: OptionValues): number {
  const json = body.json ?? {};
  if (mode === "images") return quotaForImages(pricing, imageParams(json)).quota;
  const max =
    typeof json.max_completion_tokens === "number"
      ? json.max_completion_tokens
      : typeof json.max_tokens === "number"
        ? json.max_tokens
        : null;
  const noCompletion = mode === "embeddings" || mode === "moderations" || mode === "rerank" || mode === "speech";
  return estimateReserve(pricing, {
    promptTokens,
    maxTokens: noCompletion ? 0 : max,
    // PreConsumedQuota is an integer ≥ 0 (registry); 0 reserves the prompt only.
    preConsumedTokens: noCompletion ? 0 : (options.PreConsumedQuota as number),
    n: 1,
    // Every choice is a completion of its own (billed in full by the upstream's usage).
    choices: noCompletion || typeof json.n !== "number" ? 1 : json.n,
  });
}

export function imageParams(json: Record<string, unknown>) {
  return {
    size: typeof json.size === "string" ? json.size : undefined,
    quality: typeof json.quality === "string" ? json.quality : undefined,
    n: typeof json.n === "number" ? json.n : 1,
  };
}
