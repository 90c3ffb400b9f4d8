import { describe, expect, it } from "vitest";
import { isNewYearPeriod } from "@/lib/ui/new-year";

const d = (y: number, m: number, day: number, h = 12) => new Date(y, m - 1, day, h);

describe("isNewYearPeriod", () => {
  it("is on around 1 January", () => {
    for (const date of [d(2025, 12, 31), d(2026, 1, 1), d(2026, 1, 2), d(2026, 1, 3, 23)]) {
      expect(isNewYearPeriod(date)).toBe(true);
    }
  });
  it("is on from 9 to 24 February", () => {
    for (const date of [d(2026, 2, 9, 0), d(2026, 2, 17), d(2026, 2, 24, 23)]) expect(isNewYearPeriod(date)).toBe(true);
  });
  it("is off elsewhere", () => {
    for (const date of [d(2025, 12, 30), d(2026, 1, 4), d(2026, 2, 8), d(2026, 2, 25), d(2026, 6, 1), d(2026, 3, 1)]) {
      expect(isNewYearPeriod(date)).toBe(false);
    }
  });
});
