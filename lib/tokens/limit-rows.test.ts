import { describe, expect, it } from "vitest";
import { countKeyLimits, limitColor, limitRows } from "@/lib/tokens/limit-rows";

const none = { rpm_limit: 0, tpm_limit: 0, concurrency_limit: 0, budget_quota: 0, budget_period: "" };
const dollars = { quotaPerUnit: 500000, inCurrency: true };

describe("the token list's 限制 popover", () => {
  it("counts the limits a key has; a budget without a period is none", () => {
    expect(countKeyLimits(none)).toBe(0);
    expect(countKeyLimits({ ...none, rpm_limit: 10, concurrency_limit: 2 })).toBe(2);
    expect(countKeyLimits({ ...none, budget_quota: 100 })).toBe(0);
    expect(countKeyLimits({ rpm_limit: 1, tpm_limit: 1, concurrency_limit: 1, budget_quota: 1, budget_period: "day" })).toBe(4);
  });

  it("reads each limit as used / limit with its share, the budget in the site's quota display", () => {
    const rows = limitRows(
      {
        rpm: { limit: 10, used: 3, resetMs: 12_400 },
        tpm: { limit: 100_000, used: 12_000, resetMs: 0 },
        concurrency: { limit: 5, used: 5 },
        budget: { limit: "5000000", used: "600000", period: "day", resetAt: 1_900_000_000 },
      },
      dollars,
    );
    expect(rows).toEqual([
      { label: "每分钟请求数", text: "3 / 10", percent: 30, resetSeconds: 13 },
      { label: "每分钟 token 数", text: "12k / 100k", percent: 12, resetSeconds: undefined },
      { label: "并发请求数", text: "5 / 5", percent: 100 },
      { label: "周期预算", text: "$1.20 / $10.00", percent: 12, period: { label: "每天", resetAt: 1_900_000_000 } },
    ]);
    expect(limitRows({ rpm: null, tpm: null, concurrency: null, budget: null }, dollars)).toEqual([]);
    const units = limitRows(
      { rpm: null, tpm: null, concurrency: null, budget: { limit: "50000", used: "0", period: "month", resetAt: 1 } },
      { ...dollars, inCurrency: false },
    );
    expect(units[0]).toMatchObject({ text: "0 / 50k", percent: 0, period: { label: "每月" } });
  });

  it("caps the bar at 100 and colours it near and at the limit", () => {
    expect(limitRows({ rpm: { limit: 2, used: 3, resetMs: 0 }, tpm: null, concurrency: null, budget: null }, dollars)[0]!.percent).toBe(
      100,
    );
    expect([limitColor(10), limitColor(80), limitColor(100)]).toEqual(["blue", "orange", "red"]);
  });
});
