import { describe, expect, it } from "vitest";
import { dateTimeText, parseDateTimeText } from "@/lib/ui/datetime-text";

describe("date-and-time field text", () => {
  it("shows a datetime-local value the way the tables do, 24-hour", () => {
    expect(dateTimeText("2026-11-24T15:04:05")).toBe("2026-11-24 15:04:05");
    expect(dateTimeText("2026-11-24T15:04")).toBe("2026-11-24 15:04");
    expect(dateTimeText("")).toBe("");
  });

  it("reads typed text back as a datetime-local value", () => {
    expect(parseDateTimeText("2026-11-24 15:04:05")).toBe("2026-11-24T15:04:05");
    expect(parseDateTimeText(" 2026/1/5 7:08 ")).toBe("2026-01-05T07:08");
    expect(parseDateTimeText("2026-11-24T23:59:59")).toBe("2026-11-24T23:59:59");
    expect(parseDateTimeText("2026-11-24")).toBe("2026-11-24T00:00");
    expect(parseDateTimeText("")).toBe("");
    expect(parseDateTimeText("   ")).toBe("");
  });

  it("refuses what is not a real date or a 24-hour time", () => {
    for (const bad of [
      "2026-02-30 10:00",
      "2026-13-01 10:00",
      "2026-11-24 24:00",
      "2026-11-24 10:60",
      "11/24/2026, 03:04 PM",
      "2026-11-24 3:04 PM",
      "昨天",
    ]) {
      expect(parseDateTimeText(bad), bad).toBeNull();
    }
    expect(parseDateTimeText("2028-02-29 00:00")).toBe("2028-02-29T00:00");
  });
});
