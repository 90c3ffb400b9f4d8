// Which limits apply to a call: the key's, the user's, the group's and the model's, "*" fallbacks,
// budget periods in the server's time zone, and OpenAI's headers.
import { describe, expect, it } from "vitest";
import { openAIDuration, rateHeaders } from "@/lib/limits/engine";
import { budgetPeriodBounds, type KeyLimits, limitChecks } from "@/lib/limits/rules";
import type { OptionValues } from "@/lib/options";

const options = (o: Record<string, unknown>) =>
  ({ UserRateLimits: {}, GroupRateLimits: {}, ModelRateLimits: {}, ...o }) as unknown as OptionValues;
const key = (o: Partial<KeyLimits> = {}): KeyLimits => ({
  id: 7,
  rpmLimit: 0,
  tpmLimit: 0,
  concurrencyLimit: 0,
  budgetQuota: 0,
  budgetPeriod: "",
  ...o,
});
const NOW = new Date(2026, 4, 13, 15, 30).getTime(); // a Wednesday

describe("limitChecks", () => {
  it("has nothing to check without limits (the relay then asks no store)", () => {
    expect(limitChecks(options({}), { key: key(), userId: 1, group: "default" }, "gpt-4o", NOW)).toEqual([]);
    expect(limitChecks(options({}), { key: null, userId: 1, group: "default" }, "gpt-4o", NOW)).toEqual([]);
  });

  it("lists the key's, the user's, the group's and the model's limits, each its own counter", () => {
    const o = options({
      UserRateLimits: { "*": { rpm: 30 }, vip: { rpm: 100, concurrency: 0 } },
      GroupRateLimits: { default: { tpm: 50000 } },
      ModelRateLimits: { default: { "gpt-4o": { rpm: 60 } } },
    });
    const checks = limitChecks(o, { key: key({ rpmLimit: 10, concurrencyLimit: 2 }), userId: 3, group: "default" }, "gpt-4o", NOW);
    expect(checks.map((c) => [c.scope, c.kind, c.key, c.limit])).toEqual([
      ["key", "rpm", "lim:rpm:k:7", 10],
      ["key", "concurrency", "lim:concurrency:k:7", 2],
      ["user", "rpm", "lim:rpm:u:3", 30],
      ["group", "tpm", "lim:tpm:g:default", 50000],
      ["model", "rpm", "lim:rpm:m:3:gpt-4o", 60],
    ]);
    // The group's own entry replaces "*"; 0 is no limit; another model has none.
    const vip = limitChecks(o, { key: null, userId: 3, group: "vip" }, "gpt-4o-mini", NOW);
    expect(vip.map((c) => c.key)).toEqual(["lim:rpm:u:3"]);
    expect(vip[0]!.limit).toBe(100);
  });

  it("names a budget's counter by its period's start", () => {
    const [budget] = limitChecks(
      options({}),
      { key: key({ budgetQuota: 5000, budgetPeriod: "week" }), userId: 1, group: "default" },
      "m",
      NOW,
    );
    const monday = new Date(2026, 4, 11).getTime() / 1000;
    expect(budget).toMatchObject({ kind: "budget", key: `lim:budget:k:7:${monday}`, limit: 5000 });
    expect(budget!.budget).toEqual({ tokenId: 7, period: "week", start: monday, end: monday + 7 * 86400 });
    // A budget without a period is no budget.
    expect(limitChecks(options({}), { key: key({ budgetQuota: 5000 }), userId: 1, group: "default" }, "m", NOW)).toEqual([]);
  });
});

describe("budgetPeriodBounds", () => {
  it("days, Monday weeks and months in the server's time zone", () => {
    const s = (y: number, m: number, d: number) => new Date(y, m, d).getTime() / 1000;
    expect(budgetPeriodBounds("day", NOW)).toEqual({ start: s(2026, 4, 13), end: s(2026, 4, 14) });
    expect(budgetPeriodBounds("week", new Date(2026, 4, 17, 23).getTime())).toEqual({ start: s(2026, 4, 11), end: s(2026, 4, 18) });
    expect(budgetPeriodBounds("month", NOW)).toEqual({ start: s(2026, 4, 1), end: s(2026, 5, 1) });
    expect(budgetPeriodBounds("month", new Date(2026, 11, 31).getTime())).toEqual({ start: s(2026, 11, 1), end: s(2027, 0, 1) });
  });
});

describe("x-ratelimit headers", () => {
  it("say the tightest rpm and tpm, with OpenAI's durations", () => {
    const o = options({ UserRateLimits: { "*": { rpm: 100, tpm: 1000 } } });
    const checks = limitChecks(o, { key: key({ rpmLimit: 10 }), userId: 1, group: "default" }, "m", NOW);
    const headers = rateHeaders(checks, [
      { used: 9, resetMs: 1500 },
      { used: 20, resetMs: 360_000 },
      { used: 400, resetMs: 20 },
    ]);
    expect(headers).toEqual({
      "x-ratelimit-limit-requests": "10",
      "x-ratelimit-remaining-requests": "1",
      "x-ratelimit-reset-requests": "1.5s",
      "x-ratelimit-limit-tokens": "1000",
      "x-ratelimit-remaining-tokens": "600",
      "x-ratelimit-reset-tokens": "20ms",
    });
    expect(openAIDuration(360_000)).toBe("6m0s");
    expect(openAIDuration(3_723_000)).toBe("1h2m3s");
    expect(openAIDuration(1000)).toBe("1s");
    expect(openAIDuration(1050)).toBe("1.05s");
    expect(openAIDuration(61_007)).toBe("1m1.007s");
    expect(openAIDuration(59_999.6)).toBe("1m0s");
  });
});
