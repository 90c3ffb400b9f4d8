import { describe, expect, it } from "vitest";
import { buildUsageSeries, defaultRange, MAX_SERIES, OTHERS, periodOf, perMinute, type UsageRow } from "@/lib/ui/usage-series";

// 2026-11-23 (a Monday) 00:00 UTC.
const MON = Date.UTC(2026, 10, 23) / 1000;
const row = (o: Partial<UsageRow>): UsageRow => ({
  user_id: 1,
  username: "ann",
  model_name: "gpt-4o",
  created_at: MON,
  count: 1,
  quota: 100,
  token_used: 10,
  ...o,
});

describe("periodOf", () => {
  it("names hours, days and Monday-based weeks in the viewer's zone", () => {
    expect(periodOf(MON + 5 * 3600 + 59, "hour", "UTC")).toEqual({ key: "2026-11-23 05", label: "11-23 05:00" });
    expect(periodOf(MON + 5 * 3600, "hour", "Asia/Shanghai").label).toBe("11-23 13:00");
    expect(periodOf(MON + 23 * 3600, "day", "UTC").label).toBe("11-23");
    expect(periodOf(MON + 23 * 3600, "day", "Asia/Shanghai").label).toBe("11-24");
    expect(periodOf(MON + 6 * 86400 + 86399, "week", "UTC").key).toBe("2026-11-23");
    expect(periodOf(MON + 7 * 86400, "week", "UTC")).toEqual({ key: "2026-11-30", label: "11-30 起" });
    expect(periodOf(MON - 1, "week", "UTC").key).toBe("2026-11-16");
  });
});

describe("buildUsageSeries", () => {
  it("sums rows per period and model, with every period of the range present", () => {
    const rows = [
      row({ created_at: MON + 60, quota: 100, count: 2, token_used: 30 }),
      row({ created_at: MON + 600, quota: 50, count: 1, token_used: 5, username: "ben", user_id: 2 }),
      row({ created_at: MON + 2 * 3600, model_name: "claude", quota: 400, count: 4, token_used: 40 }),
    ];
    const s = buildUsageSeries(rows, { start: MON, end: MON + 3 * 3600, granularity: "hour", dimension: "model", timeZone: "UTC" });
    expect(s.series).toEqual(["claude", "gpt-4o"]);
    expect(s.totals).toEqual({ quota: 550, count: 7, token_used: 75 });
    expect(s.data.quota).toEqual([
      { period: "11-23 00:00", claude: 0, "gpt-4o": 150 },
      { period: "11-23 01:00", claude: 0, "gpt-4o": 0 },
      { period: "11-23 02:00", claude: 400, "gpt-4o": 0 },
      { period: "11-23 03:00", claude: 0, "gpt-4o": 0 },
    ]);
    expect(s.data.count[0]).toEqual({ period: "11-23 00:00", claude: 0, "gpt-4o": 3 });
    const byUser = buildUsageSeries(rows, { start: MON, end: MON + 3600, granularity: "day", dimension: "user", timeZone: "UTC" });
    expect(byUser.series).toEqual(["ann", "ben"]);
    expect(byUser.data.token_used).toEqual([{ period: "11-23", ann: 70, ben: 5 }]);
    expect(byUser.shares).toEqual([
      { name: "ann", quota: 500 },
      { name: "ben", quota: 50 },
    ]);
  });

  it("keeps the largest series and sums the rest into one", () => {
    const rows = Array.from({ length: MAX_SERIES + 3 }, (_, i) => row({ model_name: `m${i}`, quota: 1000 - i }));
    const s = buildUsageSeries(rows, { start: MON, end: MON, granularity: "day", dimension: "model", timeZone: "UTC" });
    expect(s.series).toHaveLength(MAX_SERIES);
    expect(s.series.at(-1)).toBe(OTHERS);
    expect(s.shares.at(-1)).toEqual({ name: OTHERS, quota: [7, 8, 9, 10].reduce((a, i) => a + 1000 - i, 0) });
    expect(
      Object.values(s.data.quota[0]!)
        .filter((v) => typeof v === "number")
        .reduce((a, b) => (a as number) + (b as number), 0),
    ).toBe(s.totals.quota);
  });
});

it("defaultRange and perMinute", () => {
  expect(defaultRange("hour", 1000_000)).toEqual({ start: 1000_000 - 86400, end: 1000_000 + 3600 });
  expect(defaultRange("week", 1000_000).start).toBe(1000_000 - 30 * 86400);
  expect(perMinute({ count: 120, token_used: 6000 }, 0, 3600)).toEqual({ rpm: 2, tpm: 100 });
});
