import { describe, expect, it } from "vitest";
import { formatCompact, formatQuota, formatTimestamp, validTimeZone } from "@/lib/ui/format";

describe("formatCompact (spec §9: k from 1e4, M from 1e6, B from 1e9)", () => {
  it("keeps small numbers whole", () => {
    expect(formatCompact(0)).toBe("0");
    expect(formatCompact(9999)).toBe("9999");
    expect(formatCompact(12n)).toBe("12");
  });
  it("abbreviates from the thresholds on", () => {
    expect(formatCompact(10000)).toBe("10k");
    expect(formatCompact(12345)).toBe("12.3k");
    expect(formatCompact(999_999)).toBe("1000k");
    expect(formatCompact(1_000_000)).toBe("1M");
    expect(formatCompact(2_500_000)).toBe("2.5M");
    expect(formatCompact(3_000_000_000n)).toBe("3B");
    expect(formatCompact(-25_000)).toBe("-25k");
  });
});

describe("formatQuota", () => {
  const dollars = { quotaPerUnit: 500000, inCurrency: true };
  const units = { quotaPerUnit: 500000, inCurrency: false };
  it("shows dollars at QuotaPerUnit per $", () => {
    expect(formatQuota(500000, dollars)).toBe("$1.00");
    expect(formatQuota(1_250_000n, dollars)).toBe("$2.50");
    expect(formatQuota(0, dollars)).toBe("$0.00");
    expect(formatQuota(-500000, dollars)).toBe("-$1.00");
  });
  it("never shows a non-zero amount as $0.00", () => {
    expect(formatQuota(261, dollars)).toBe("$0.00052");
    expect(formatQuota(1, dollars)).toBe("$0.000002");
  });
  it("follows another QuotaPerUnit", () => {
    expect(formatQuota(1000, { quotaPerUnit: 1000, inCurrency: true })).toBe("$1.00");
  });
  it("shows units when currency display is off", () => {
    expect(formatQuota(500000, units)).toBe("500k");
    expect(formatQuota(261, units)).toBe("261");
  });
});

describe("formatTimestamp", () => {
  it("writes the time in the given zone", () => {
    expect(formatTimestamp(1_700_000_000, "UTC")).toBe("2023-11-14 22:13:20");
    expect(formatTimestamp(1_700_000_000, "Asia/Shanghai")).toBe("2023-11-15 06:13:20");
  });
  it("writes nothing for 0 and -1", () => {
    expect(formatTimestamp(0, "UTC")).toBe("");
    expect(formatTimestamp(-1, "UTC")).toBe("");
  });
  it("accepts only real zone names", () => {
    expect(validTimeZone("Asia/Shanghai")).toBe("Asia/Shanghai");
    expect(validTimeZone("Not/AZone")).toBeUndefined();
    expect(validTimeZone("")).toBeUndefined();
  });
});
