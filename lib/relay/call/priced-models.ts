// The models a list may offer: those the relay can bill. Its own module, not pricing.ts: the model
// lists (models-and-billing.ts) are read by the inbound protocols' free routes, and pricing.ts reads the call's
// state (call-context.ts), which names the inbound protocols: one file would close a circle.
import type { OptionValues } from "@/lib/options";
import { isModelPriced } from "@/lib/billing/ratios";

/** Model lists per options snapshot, per list object (a group's routed models, a key's limits). */
const pricedMemo = new WeakMap<OptionValues, WeakMap<object, readonly string[]>>();

/**
 * The models of `models` the relay can bill (isModelPriced, the test that refuses the others with
 * 倍率或价格未配置), sorted. Computed once per options snapshot and list object: the routing
 * table's lists and a cached key's limits are replaced when they change, so a model list request
 * costs two WeakMap lookups.
 */
export function pricedModels(options: OptionValues, models: readonly string[] | ReadonlySet<string>): readonly string[] {
  let memo = pricedMemo.get(options);
  if (!memo) pricedMemo.set(options, (memo = new WeakMap()));
  let hit = memo.get(models);
  if (!hit) {
    const table = { modelRatio: options.ModelRatio, modelPrice: options.ModelPrice, selfUseModeEnabled: options.SelfUseModeEnabled };
    hit = [...models].filter((model) => isModelPriced(model, table)).sort();
    memo.set(models, hit);
  }
  return hit;
}
