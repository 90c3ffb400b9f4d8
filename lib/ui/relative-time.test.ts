import { describe, expect, it } from "vitest";
import { relativeTime } from "@/lib/ui/relative-time";

const NOW = 1_800_000_000;

describe("relativeTime", () => {
  it("says 刚刚 within a minute, and for a time slightly ahead of the viewer's clock", () => {
    expect(relativeTime(NOW, NOW)).toBe("刚刚");
    expect(relativeTime(NOW - 59, NOW)).toBe("刚刚");
    expect(relativeTime(NOW + 30, NOW)).toBe("刚刚");
  });
  it("counts whole minutes, hours and days", () => {
    expect(relativeTime(NOW - 60, NOW)).toBe("1 分钟前");
    expect(relativeTime(NOW - 3599, NOW)).toBe("59 分钟前");
    expect(relativeTime(NOW - 3600, NOW)).toBe("1 小时前");
    expect(relativeTime(NOW - 86_399, NOW)).toBe("23 小时前");
    expect(relativeTime(NOW - 86_400, NOW)).toBe("1 天前");
    expect(relativeTime(NOW - 29 * 86_400, NOW)).toBe("29 天前");
  });
  it("gives the date past a month, in the viewer's zone", () => {
    // 2026-11-15 00:30 UTC is still the 14th in New York.
    const t = Date.UTC(2026, 10, 15, 0, 30) / 1000;
    expect(relativeTime(t, t + 40 * 86_400, "UTC")).toBe("2026-11-15");
    expect(relativeTime(t, t + 40 * 86_400, "America/New_York")).toBe("2026-11-14");
  });
});
