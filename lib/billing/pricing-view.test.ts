import { describe, expect, it } from "vitest";
import { decimalToRat } from "@/lib/billing/price";
import type { PricingEntry, PricingList } from "@/lib/billing/pricing";
import { chooseGroup, describePrice, formatDecimal, formatQuotaUnits, formatUsd, viewPricing } from "@/lib/billing/pricing-view";

const tokens = (model_name: string, model_ratio: number, completion_ratio: number, enable_groups = ["default", "vip"]): PricingEntry => ({
  model_name,
  quota_type: 0,
  model_ratio,
  model_price: 0,
  completion_ratio,
  enable_groups,
});
const perCall = (model_name: string, model_price: number, enable_groups = ["default", "vip"]): PricingEntry => ({
  model_name,
  quota_type: 1,
  model_ratio: 0,
  model_price,
  completion_ratio: 0,
  enable_groups,
});

const list: PricingList = {
  data: [
    perCall("dall-e-3", 0.04),
    tokens("gpt-3.5-turbo", 0.25, 4 / 3),
    tokens("gpt-4o", 1.25, 4),
    tokens("gpt-4o-mini", 0.075, 4, ["vip"]),
    perCall("mj_imagine", 0.1, ["default"]),
  ],
  group_ratio: { default: 1, vip: 0.8 },
  usable_group: { default: "默认分组", vip: "vip分组" },
};

describe("prices per 1M tokens and per call (spec §9)", () => {
  it("is model ratio × 2 × group ratio in US$, the completion ratio on output", () => {
    expect(describePrice(tokens("gpt-4o", 1.25, 4), 1, true)).toEqual({ kind: "tokens", input: "$2.50", output: "$10.00" });
    // 0.075 × 2 × 0.8 is 0.12 exactly, not 0.12000000000000001.
    expect(describePrice(tokens("gpt-4o-mini", 0.075, 4), 0.8, true)).toEqual({ kind: "tokens", input: "$0.12", output: "$0.48" });
    expect(describePrice(tokens("gpt-3.5-turbo", 0.25, 4 / 3), 1, true)).toEqual({ kind: "tokens", input: "$0.50", output: "$0.666667" });
    expect(describePrice(tokens("tiny", 0.0000001, 1), 1, true)).toEqual({ kind: "tokens", input: "$0.0000002", output: "$0.0000002" });
    expect(describePrice(tokens("free", 0, 1), 1, true)).toEqual({ kind: "tokens", input: "$0.00", output: "$0.00" });
  });

  it("is model price × group ratio per call", () => {
    expect(describePrice(perCall("dall-e-3", 0.04), 1, true)).toEqual({ kind: "call", call: "$0.04" });
    expect(describePrice(perCall("dall-e-3", 0.04), 0.8, true)).toEqual({ kind: "call", call: "$0.032" });
  });

  it("is the quota the relay bills when currency is not shown", () => {
    // Ratio 1 is 1 quota per token: 1.25 × 1M = 1.25M per 1M input tokens, × 4 on output.
    expect(describePrice(tokens("gpt-4o", 1.25, 4), 1, false)).toEqual({ kind: "tokens", input: "1.25M", output: "5M" });
    expect(describePrice(tokens("gpt-4o-mini", 0.075, 4), 0.8, false)).toEqual({ kind: "tokens", input: "60k", output: "240k" });
    expect(describePrice(tokens("cheap", 0.001, 1), 1, false)).toEqual({ kind: "tokens", input: "1000", output: "1000" });
    // Per call: price × group × 500 000.
    expect(describePrice(perCall("dall-e-3", 0.04), 1, false)).toEqual({ kind: "call", call: "20k" });
  });
});

describe("number formats", () => {
  it("rounds once, half up, within the digits allowed", () => {
    expect(formatDecimal(decimalToRat(2.5), 2, 6)).toBe("2.50");
    expect(formatDecimal(decimalToRat(0.0000005), 0, 6)).toBe("0.000001");
    expect(formatDecimal(decimalToRat(0.00000049), 0, 6)).toBe("0");
    expect(formatDecimal(decimalToRat(12), 0, 4)).toBe("12");
    expect(formatUsd(decimalToRat(1234.5))).toBe("$1234.50");
  });

  it("writes quota with k/M/B from 1e4/1e6/1e9 without dropping digits", () => {
    expect(formatQuotaUnits(decimalToRat(9999))).toBe("9999");
    expect(formatQuotaUnits(decimalToRat(10000))).toBe("10k");
    expect(formatQuotaUnits(decimalToRat(1333333.3333))).toBe("1.3333M");
    expect(formatQuotaUnits(decimalToRat(2500000000))).toBe("2.5B");
    expect(formatQuotaUnits(decimalToRat(0.5))).toBe("0.5");
  });
});

describe("the rows of a group", () => {
  it("shows the chosen group's models priced with its ratio, by name", () => {
    const view = viewPricing(list, { group: "vip", keyword: "", sort: "" }, { inCurrency: true });
    expect(view.group).toBe("vip");
    expect(view.groupRatio).toBe(0.8);
    expect(view.groups).toEqual([
      { value: "default", label: "默认分组", ratio: 1 },
      { value: "vip", label: "vip分组", ratio: 0.8 },
    ]);
    expect(view.rows.map((r) => [r.model_name, r.price])).toEqual([
      ["dall-e-3", { kind: "call", call: "$0.032" }],
      ["gpt-3.5-turbo", { kind: "tokens", input: "$0.40", output: "$0.533333" }],
      ["gpt-4o", { kind: "tokens", input: "$2.00", output: "$8.00" }],
      ["gpt-4o-mini", { kind: "tokens", input: "$0.12", output: "$0.48" }],
    ]);
    expect(new Set(view.rows.map((r) => r.id)).size).toBe(4);
  });

  it("searches the trimmed name in any case", () => {
    const view = viewPricing(list, { group: "default", keyword: "  GPT-4O ", sort: "name" }, { inCurrency: true });
    expect(view.rows.map((r) => r.model_name)).toEqual(["gpt-4o"]);
    expect(viewPricing(list, { group: "default", keyword: "nothing", sort: "name" }, { inCurrency: true }).rows).toEqual([]);
  });

  it("sorts by price: billed by tokens first (input price), then per call, ties by name", () => {
    const asc = viewPricing(list, { group: "default", keyword: "", sort: "price-asc" }, { inCurrency: true });
    expect(asc.rows.map((r) => r.model_name)).toEqual(["gpt-3.5-turbo", "gpt-4o", "dall-e-3", "mj_imagine"]);
    const desc = viewPricing(list, { group: "default", keyword: "", sort: "price-desc" }, { inCurrency: true });
    expect(desc.rows.map((r) => r.model_name)).toEqual(["gpt-4o", "gpt-3.5-turbo", "mj_imagine", "dall-e-3"]);
    const tie = viewPricing(
      { ...list, data: [tokens("b", 1, 1), tokens("a", 1, 1)] },
      { group: "default", keyword: "", sort: "price-desc" },
      { inCurrency: true },
    );
    expect(tie.rows.map((r) => r.model_name)).toEqual(["a", "b"]);
  });

  it("writes quota units when currency is not shown", () => {
    const view = viewPricing(list, { group: "default", keyword: "gpt-4o", sort: "name" }, { inCurrency: false });
    expect(view.rows[0]!.price).toEqual({ kind: "tokens", input: "1.25M", output: "5M" });
  });
});

describe("which group is shown", () => {
  const usable = { default: "默认分组", vip: "vip分组", mine: "mine" };
  it("takes the asked group if the viewer may pick it, else their own, else default, else the first", () => {
    expect(chooseGroup("vip", usable, "mine")).toBe("vip");
    expect(chooseGroup("svip", usable, "mine")).toBe("mine");
    expect(chooseGroup("", usable)).toBe("default");
    expect(chooseGroup("", { other: "x" })).toBe("other");
    expect(chooseGroup("", {})).toBe("default");
    // A visitor only has default.
    expect(viewPricing(list, { group: "vip", keyword: "", sort: "" }, { inCurrency: true }).group).toBe("vip");
    expect(
      viewPricing({ ...list, usable_group: { default: "默认分组" } }, { group: "vip", keyword: "", sort: "" }, { inCurrency: true }).group,
    ).toBe("default");
  });
});
