// The pricing page's table (`GET /api/pricing`, new-api model/pricing.go): every model that an
// enabled channel serves, with the ratios or per-call price the relay bills it at
// (lib/billing/ratios.ts resolvePricing, so page and bill never disagree), and the groups that
// reach it.
//
// What a viewer sees is scoped to the groups they may pick (lib/options/groups.ts):
// - signed in: UserUsableGroups plus their own group (the same set as `GET /api/user/self/groups`);
// - a visitor: only `default` (spec §2 "Logged-out visitors see the default group").
// `usable_group` is that set (group → label), `group_ratio` its ratios (1 for a group without a
// GroupRatio entry, as the relay bills it), each model's `enable_groups` only groups of the set, and
// a model none of them reaches is left out, so the page names no private group or its models.
// Models the relay would refuse for want of a price (no ModelPrice or ModelRatio entry, self-use
// mode off) are left out too.
import { isModelPriced, lookupGroupRatio, type PriceTable, resolvePricing, type RatioMap } from "@/lib/billing/ratios";
import { onInvalidation } from "@/lib/cache/bus";
import { getDb } from "@/lib/db";
import { getOptions, type OptionValues } from "@/lib/options";
import { usableGroups } from "@/lib/options/groups";
import { processSingleton } from "@/lib/singleton";

export const VISITOR_GROUP = "default";
const VISITOR_GROUP_LABEL = "默认分组";

export type PricingEntry = {
  model_name: string;
  /** 0: billed by tokens (ratios); 1: billed per call (model_price). */
  quota_type: 0 | 1;
  /** ModelRatio; 0 when billed per call. US$ per 1M prompt tokens = model_ratio × 2 × group ratio. */
  model_ratio: number;
  /** US$ per call (ModelPrice); 0 when billed by tokens. */
  model_price: number;
  /** Completion tokens cost model_ratio × completion_ratio; 0 when billed per call. */
  completion_ratio: number;
  /** Groups of the viewer's usable set through which an enabled channel serves the model, sorted. */
  enable_groups: string[];
};

export type PricingList = {
  /** Sorted by model name. */
  data: PricingEntry[];
  /** Ratio of each group the viewer may pick. */
  group_ratio: Record<string, number>;
  /** The groups the viewer may pick, group → label. */
  usable_group: Record<string, string>;
};

// model → groups with an enabled ability, read at most once a minute (new-api rebuilt its table as
// often) and dropped at once when a channel changes in this instance.
const SERVED_TTL_MS = 60_000;
type ServedState = { value: Promise<Map<string, string[]>> | null; loadedAt: number; subscribed: boolean };
const state = processSingleton<ServedState>("servedModels", () => ({ value: null, loadedAt: 0, subscribed: false }));

async function loadServedModels(): Promise<Map<string, string[]>> {
  const db = await getDb();
  const rows = await db.ability.findMany({
    where: { enabled: true },
    select: { model: true, group: true },
    distinct: ["model", "group"],
  });
  const served = new Map<string, string[]>();
  for (const { model, group } of rows) {
    const groups = served.get(model);
    if (groups) groups.push(group);
    else served.set(model, [group]);
  }
  // Sorted here, not by the database: collations differ between providers.
  for (const groups of served.values()) groups.sort();
  return new Map([...served].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function servedModels(): Promise<Map<string, string[]>> {
  if (!state.subscribed) {
    state.subscribed = true;
    onInvalidation((event) => {
      if (event.kind === "channels" || event.kind === "resync") state.value = null;
    });
  }
  if (!state.value || Date.now() - state.loadedAt > SERVED_TTL_MS) {
    const loading = loadServedModels();
    state.value = loading;
    state.loadedAt = Date.now();
    loading.catch(() => {
      if (state.value === loading) state.value = null;
    });
  }
  return state.value;
}

/** The options that decide whether a model has a price (lib/billing/ratios.ts isModelPriced). */
export function priceTableOf(o: OptionValues): PriceTable {
  return { modelRatio: o.ModelRatio as RatioMap, modelPrice: o.ModelPrice as RatioMap, selfUseModeEnabled: o.SelfUseModeEnabled };
}

/** The models of `models` the relay can bill: the lists users pick from leave the others out. */
export async function withPrice(models: string[]): Promise<string[]> {
  const table = priceTableOf(await getOptions());
  return models.filter((model) => isModelPriced(model, table));
}

/** The pricing table for a signed-in user (their group) or a visitor (null). */
export async function listPricing(viewer: { group: string } | null): Promise<PricingList> {
  const [o, served] = await Promise.all([getOptions(), servedModels()]);
  const usable_group = viewer
    ? usableGroups(viewer.group, o)
    : { [VISITOR_GROUP]: (o.UserUsableGroups as Record<string, string>)[VISITOR_GROUP] ?? VISITOR_GROUP_LABEL };
  // fromEntries: every group an own key, `__proto__` included.
  const group_ratio: Record<string, number> = Object.fromEntries(
    Object.keys(usable_group).map((group) => [group, lookupGroupRatio(o.GroupRatio as RatioMap, group) ?? 1]),
  );

  const options = { ...priceTableOf(o), completionRatio: o.CompletionRatio as RatioMap, groupRatio: o.GroupRatio as RatioMap };
  const data: PricingEntry[] = [];
  for (const [model, groups] of served) {
    const enable_groups = groups.filter((group) => Object.hasOwn(usable_group, group));
    if (enable_groups.length === 0) continue;
    const priced = resolvePricing(model, options, VISITOR_GROUP);
    if (!priced.ok) continue;
    const p = priced.pricing;
    data.push(
      p.kind === "price"
        ? { model_name: model, quota_type: 1, model_ratio: 0, model_price: p.modelPrice, completion_ratio: 0, enable_groups }
        : {
            model_name: model,
            quota_type: 0,
            model_ratio: p.modelRatio,
            model_price: 0,
            completion_ratio: p.completionRatio,
            enable_groups,
          },
    );
  }
  return { data, group_ratio, usable_group };
}
