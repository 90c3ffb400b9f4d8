// How the pricing page reads the pricing table (spec §2 Pricing page, §9). Pure: the page passes
// what listPricing answered and the display option, and gets the rows of the chosen group with
// their prices already written out.
//
// Prices, exact from the decimals the admin typed (lib/billing/price.ts decimalToRat), rounded once:
// - billed by tokens: input US$ per 1M tokens = model ratio × 2 × group ratio (spec §9); output =
//   input × completion ratio;
// - billed per call: US$ per call = model price × group ratio.
// While the console shows quota units instead of currency (DisplayInCurrencyEnabled off), the same
// prices are the quota the relay bills: ratio 1 is 1 quota per token, so model ratio × group ratio
// × 1 000 000 per 1M tokens, and model price × group ratio × 500 000 per call.
import { decimalToRat, QUOTA_PER_UNIT } from "@/lib/billing/price";
import type { PricingEntry, PricingList } from "@/lib/billing/pricing";

type Rat = ReturnType<typeof decimalToRat>;

export const PRICING_SORTS = [
  { value: "name", label: "按名称" },
  { value: "price-asc", label: "价格从低到高" },
  { value: "price-desc", label: "价格从高到低" },
] as const;

export type PricingSort = (typeof PRICING_SORTS)[number]["value"];

export const BILLING_KIND_LABEL = { 0: "按量计费", 1: "按次计费" } as const;

export type PricingPrice =
  /** Billed by tokens: per 1M input tokens and per 1M output tokens. */
  | { kind: "tokens"; input: string; output: string }
  /** Billed per call. */
  | { kind: "call"; call: string };

export type PricingRow = PricingEntry & { id: number; price: PricingPrice };

export type PricingGroup = { value: string; label: string; ratio: number };

export type PricingView = {
  /** The group whose prices are shown. */
  group: string;
  groupRatio: number;
  /** Every group the viewer may switch to, in the order the server listed them. */
  groups: PricingGroup[];
  /** The group's models that match the search, in the chosen order. */
  rows: PricingRow[];
};

export type PricingQuery = { group: string; keyword: string; sort: string };

const rat = (n: bigint, d: bigint = 1n): Rat => ({ n, d });
const mul = (a: Rat, b: Rat): Rat => rat(a.n * b.n, a.d * b.d);
/** a < b → negative, a > b → positive, equal → 0; exact. */
const compare = (a: Rat, b: Rat): number => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};

/** A non-negative fraction as a decimal with at least `min` and at most `max` digits after the point, half up. */
export function formatDecimal(value: Rat, min: number, max: number): string {
  const scale = 10n ** BigInt(max);
  const scaled = (2n * value.n * scale + value.d) / (2n * value.d);
  const whole = scaled / scale;
  let frac = (scaled % scale).toString().padStart(max, "0");
  while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** US$: two decimals at least, six at most ($2.50, $0.15, $0.000075); a tiny non-zero price never reads $0.00. */
export function formatUsd(value: Rat): string {
  const text = formatDecimal(value, 2, 6);
  if (value.n !== 0n && /^0\.0+$/.test(text)) return `$${formatDecimal(value, 2, 12)}`;
  return `$${text}`;
}

/** Quota units, k/M/B from 1e4/1e6/1e9 (spec §9) without losing digits: 1.25M, 75k, 1333.3333k. */
export function formatQuotaUnits(value: Rat): string {
  const steps: Array<[bigint, string]> = [
    [1_000_000_000n, "B"],
    [1_000_000n, "M"],
    [10_000n, "k"],
  ];
  for (const [at, suffix] of steps) {
    if (compare(value, rat(at)) >= 0) {
      const unit = suffix === "k" ? 1000n : at;
      return `${formatDecimal(rat(value.n, value.d * unit), 0, 4)}${suffix}`;
    }
  }
  return formatDecimal(value, 0, 4);
}

const TWO = rat(2n);
const MILLION = rat(1_000_000n);
/**
 * The exact prices of one entry in a group: per 1M tokens (input, output) or per call, in US$ or
 * quota (a per-call price at `quotaPerUnit` quota per US$, the QuotaPerUnit option the relay bills with).
 */
export function priceOf(
  entry: PricingEntry,
  groupRatio: number,
  inCurrency: boolean,
  quotaPerUnit: number = QUOTA_PER_UNIT,
): { input: Rat; output: Rat } | { call: Rat } {
  const group = decimalToRat(groupRatio);
  if (entry.quota_type === 1) {
    const usd = mul(decimalToRat(entry.model_price), group);
    return { call: inCurrency ? usd : mul(usd, decimalToRat(quotaPerUnit)) };
  }
  const base = mul(decimalToRat(entry.model_ratio), group);
  const input = inCurrency ? mul(base, TWO) : mul(base, MILLION);
  return { input, output: mul(input, decimalToRat(entry.completion_ratio)) };
}

/** The prices of one entry as the page writes them. */
export function describePrice(entry: PricingEntry, groupRatio: number, inCurrency: boolean, quotaPerUnit?: number): PricingPrice {
  const format = inCurrency ? formatUsd : formatQuotaUnits;
  const price = priceOf(entry, groupRatio, inCurrency, quotaPerUnit);
  return "call" in price
    ? { kind: "call", call: format(price.call) }
    : { kind: "tokens", input: format(price.input), output: format(price.output) };
}

/**
 * The group to show: the one asked for when the viewer may pick it, else their own group, else
 * `default`, else the first one offered.
 */
export function chooseGroup(requested: string, usable: Record<string, string>, own?: string): string {
  for (const group of [requested, own, "default"]) if (group && Object.hasOwn(usable, group)) return group;
  return Object.keys(usable)[0] ?? "default";
}

export const isPricingSort = (value: string): value is PricingSort => PRICING_SORTS.some((s) => s.value === value);

/**
 * The rows of the pricing page: the chosen group's models whose name contains the keyword
 * (trimmed, any case), priced for that group. Sorted by name, or by price: models billed by tokens
 * (by their input price) before models billed per call (by their call price), ties by name.
 */
export function viewPricing(
  list: PricingList,
  query: PricingQuery,
  options: { inCurrency: boolean; ownGroup?: string; quotaPerUnit?: number },
): PricingView {
  const group = chooseGroup(query.group.trim(), list.usable_group, options.ownGroup);
  const ratioOf = (g: string) => (Object.hasOwn(list.group_ratio, g) ? list.group_ratio[g]! : 1);
  const groupRatio = ratioOf(group);
  const groups = Object.entries(list.usable_group).map(([value, label]) => ({ value, label, ratio: ratioOf(value) }));
  const keyword = query.keyword.trim().toLowerCase();
  const sort: PricingSort = isPricingSort(query.sort) ? query.sort : "name";

  const priced = list.data
    .filter((e) => e.enable_groups.includes(group) && (!keyword || e.model_name.toLowerCase().includes(keyword)))
    .map((entry) => {
      const exact = priceOf(entry, groupRatio, true);
      return { entry, key: "call" in exact ? exact.call : exact.input };
    });
  const byName = (a: PricingEntry, b: PricingEntry) => (a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0);
  priced.sort((a, b) => {
    if (sort !== "name") {
      if (a.entry.quota_type !== b.entry.quota_type) return a.entry.quota_type - b.entry.quota_type;
      const c = compare(a.key, b.key);
      if (c !== 0) return sort === "price-asc" ? c : -c;
    }
    return byName(a.entry, b.entry);
  });

  const rows = priced.map(({ entry }, i) => ({
    ...entry,
    id: i + 1,
    price: describePrice(entry, groupRatio, options.inCurrency, options.quotaPerUnit),
  }));
  return { group, groupRatio, groups, rows };
}
