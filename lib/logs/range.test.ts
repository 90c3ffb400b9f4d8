import { describe, expect, it } from "vitest";
import { defaultLogRange, logFiltersOf, startOfDay } from "./range";

// 2026-11-24 09:30:15 in Shanghai (UTC+8) is 01:30:15 UTC.
const NOW = Date.UTC(2026, 10, 24, 1, 30, 15) / 1000;

describe("the default range", () => {
  it("starts at midnight in the viewer's zone and ends an hour ahead", () => {
    expect(startOfDay(NOW, "Asia/Shanghai")).toBe(Date.UTC(2026, 10, 23, 16) / 1000);
    expect(startOfDay(NOW, "UTC")).toBe(Date.UTC(2026, 10, 24) / 1000);
    expect(startOfDay(NOW, "America/New_York")).toBe(Date.UTC(2026, 10, 23, 5) / 1000);
    expect(defaultLogRange(NOW, "UTC")).toEqual({ start_timestamp: Date.UTC(2026, 10, 24) / 1000, end_timestamp: NOW + 3600 });
  });
});

describe("the page's filters from its URL", () => {
  const from = (q: Record<string, string>) => (key: string) => q[key] ?? "";

  it("fills the default range only for times the URL does not name", () => {
    const f = logFiltersOf(from({}), false, NOW, "UTC");
    expect(f).toEqual({
      type: 0,
      token_name: "",
      model_name: "",
      start_timestamp: Date.UTC(2026, 10, 24) / 1000,
      end_timestamp: NOW + 3600,
      username: "",
      channel: 0,
    });
    const open = logFiltersOf(from({ start_timestamp: "0", end_timestamp: "0" }), false, NOW, "UTC");
    expect([open.start_timestamp, open.end_timestamp]).toEqual([0, 0]);
    const garbage = logFiltersOf(from({ start_timestamp: "soon", end_timestamp: "-4", type: "1.5" }), false, NOW, "UTC");
    expect([garbage.start_timestamp, garbage.end_timestamp, garbage.type]).toEqual([f.start_timestamp, f.end_timestamp, 0]);
  });

  it("keeps the admin filters for admins only", () => {
    const q = from({ username: "ann", channel: "3", type: "2", token_name: "k", model_name: "m" });
    expect(logFiltersOf(q, true, NOW)).toMatchObject({ username: "ann", channel: 3, type: 2, token_name: "k", model_name: "m" });
    expect(logFiltersOf(q, false, NOW)).toMatchObject({ username: "", channel: 0, type: 2, token_name: "k", model_name: "m" });
    expect(logFiltersOf(from({ channel: "99999999999" }), true, NOW).channel).toBe(0);
  });
});
