// Which limits apply to one relay call (pure): the key's own (its token columns), the user's
// (UserRateLimits for the caller's group, else "*"; counted per user), the group's
// (GroupRateLimits[group]; counted for every user of the group together) and the model's
// (ModelRateLimits for the group, else "*", then the model; counted per user and model).
// 0 or absent is no limit. Each applicable limit is one counter: the store keys below name it.
import type { OptionValues } from "@/lib/options";
import { BUDGET_PERIODS, type BudgetPeriod, LIMIT_KINDS, type LimitSet } from "@/lib/limits/types";

export type CounterKind = "rpm" | "tpm" | "concurrency" | "budget";
export type LimitScope = "key" | "user" | "group" | "model";

/** One counter a call is admitted against. */
export type LimitCheck = {
  kind: CounterKind;
  scope: LimitScope;
  /** The counter's store key (without the store's prefix). */
  key: string;
  limit: number;
  /** The group (scope "group") or model (scope "model") the message names. */
  name: string;
  /** Budgets: the key's id and its current period (unix seconds, server time zone). */
  budget?: { tokenId: number; period: BudgetPeriod; start: number; end: number };
};

/** The key's own limits, as the relay's key entry carries them (lib/relay/memory/key-user-channel-cache.ts). */
export type KeyLimits = {
  id: number;
  rpmLimit: number;
  tpmLimit: number;
  concurrencyLimit: number;
  budgetQuota: number;
  budgetPeriod: string;
};

export type LimitCaller = { key: KeyLimits | null; userId: number; group: string };

type GroupTable = Readonly<Record<string, LimitSet>>;
type ModelTable = Readonly<Record<string, Readonly<Record<string, LimitSet>>>>;

/** The options' limit tables, looked at once per options load. */
type OptionLimits = { user: GroupTable; group: GroupTable; model: ModelTable; any: boolean };
const byOptions = new WeakMap<OptionValues, OptionLimits>();

function optionLimits(options: OptionValues): OptionLimits {
  let parsed = byOptions.get(options);
  if (!parsed) {
    const user = options.UserRateLimits as GroupTable;
    const group = options.GroupRateLimits as GroupTable;
    const model = options.ModelRateLimits as ModelTable;
    const any = Object.keys(user).length > 0 || Object.keys(group).length > 0 || Object.keys(model).length > 0;
    parsed = { user, group, model, any };
    byOptions.set(options, parsed);
  }
  return parsed;
}

const own = <T>(table: Readonly<Record<string, T>>, name: string): T | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);

/** Whether a key carries any limit of its own. */
export const keyHasLimits = (k: KeyLimits): boolean =>
  k.rpmLimit > 0 || k.tpmLimit > 0 || k.concurrencyLimit > 0 || (k.budgetQuota > 0 && isBudgetPeriod(k.budgetPeriod));

export const isBudgetPeriod = (p: string): p is BudgetPeriod => (BUDGET_PERIODS as readonly string[]).includes(p);

/** The start and end (unix seconds) of the period holding `nowMs`, in the server's time zone; weeks start on Monday. */
export function budgetPeriodBounds(period: BudgetPeriod, nowMs: number): { start: number; end: number } {
  const d = new Date(nowMs);
  let start: Date;
  let end: Date;
  if (period === "day") {
    start = new Date(d.getFullYear(), d.getMonth(), d.getDate());
    end = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1);
  } else if (period === "week") {
    const sinceMonday = (d.getDay() + 6) % 7;
    start = new Date(d.getFullYear(), d.getMonth(), d.getDate() - sinceMonday);
    end = new Date(d.getFullYear(), d.getMonth(), d.getDate() - sinceMonday + 7);
  } else {
    start = new Date(d.getFullYear(), d.getMonth(), 1);
    end = new Date(d.getFullYear(), d.getMonth() + 1, 1);
  }
  return { start: Math.floor(start.getTime() / 1000), end: Math.floor(end.getTime() / 1000) };
}

/** The key's own checks (also what the console shows against: lib/limits/usage.ts). */
export function keyChecks(k: KeyLimits, nowMs: number): LimitCheck[] {
  const checks: LimitCheck[] = [];
  const limits: LimitSet = { rpm: k.rpmLimit, tpm: k.tpmLimit, concurrency: k.concurrencyLimit };
  addSet(checks, "key", `k:${k.id}`, "", limits);
  if (k.budgetQuota > 0 && isBudgetPeriod(k.budgetPeriod)) {
    const { start, end } = budgetPeriodBounds(k.budgetPeriod, nowMs);
    checks.push({
      kind: "budget",
      scope: "key",
      key: `lim:budget:k:${k.id}:${start}`,
      limit: k.budgetQuota,
      name: "",
      budget: { tokenId: k.id, period: k.budgetPeriod, start, end },
    });
  }
  return checks;
}

function addSet(checks: LimitCheck[], scope: LimitScope, id: string, name: string, set: LimitSet | undefined) {
  if (!set) return;
  for (const kind of LIMIT_KINDS) {
    const limit = set[kind];
    if (typeof limit === "number" && limit > 0) checks.push({ kind, scope, key: `lim:${kind}:${id}`, limit, name });
  }
}

/** The checks of one call; an empty list when nothing limits it (then the store is never asked). */
export function limitChecks(options: OptionValues, caller: LimitCaller, model: string, nowMs: number): LimitCheck[] {
  const key = caller.key && keyHasLimits(caller.key) ? keyChecks(caller.key, nowMs) : [];
  const tables = optionLimits(options);
  if (!tables.any) return key;
  const { group } = caller;
  addSet(key, "user", `u:${caller.userId}`, "", own(tables.user, group) ?? own(tables.user, "*"));
  addSet(key, "group", `g:${group}`, group, own(tables.group, group));
  const models = own(tables.model, group) ?? own(tables.model, "*");
  if (models) addSet(key, "model", `m:${caller.userId}:${model}`, model, own(models, model));
  return key;
}
