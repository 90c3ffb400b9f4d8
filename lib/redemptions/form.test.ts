import { describe, expect, it } from "vitest";
import { buildRedemptionRequest, codesFile, REDEMPTION_FORM_MSG, selectedLines } from "@/lib/redemptions/form";
import { REDEMPTION_COUNT_MAX, REDEMPTION_DEFAULTS, REDEMPTION_MSG } from "@/lib/redemptions/schemas";

describe("redemption form (spec §5)", () => {
  it("sends nothing for an empty name on create", () => {
    expect(buildRedemptionRequest({ name: "   ", quota: 100000, count: 1 })).toEqual({ kind: "skip" });
  });

  it("creates with the name trimmed and quota and count parsed as integers", () => {
    expect(buildRedemptionRequest({ name: " gift ", quota: "2500", count: "3" })).toEqual({
      kind: "create",
      body: { name: "gift", quota: 2500, count: 3 },
    });
    expect(buildRedemptionRequest({ name: "gift", quota: "12.7", count: "2x" })).toEqual({
      kind: "create",
      body: { name: "gift", quota: 12, count: 2 },
    });
    expect(buildRedemptionRequest({ name: "gift", quota: REDEMPTION_DEFAULTS.quota, count: REDEMPTION_DEFAULTS.count })).toEqual({
      kind: "create",
      body: { name: "gift", quota: 100000, count: 1 },
    });
  });

  it("refuses bad values with the API's texts", () => {
    const invalid = (field: string, message: string) => ({ kind: "invalid", field, message });
    expect(buildRedemptionRequest({ name: "gift", quota: "", count: 1 })).toEqual(invalid("quota", REDEMPTION_MSG.quotaInvalid));
    expect(buildRedemptionRequest({ name: "gift", quota: "abc", count: 1 })).toEqual(invalid("quota", REDEMPTION_MSG.quotaInvalid));
    expect(buildRedemptionRequest({ name: "gift", quota: 0, count: 1 })).toEqual(invalid("quota", REDEMPTION_MSG.quotaInvalid));
    expect(buildRedemptionRequest({ name: "gift", quota: 1, count: "abc" })).toEqual(invalid("count", REDEMPTION_MSG.countNotInteger));
    expect(buildRedemptionRequest({ name: "gift", quota: 1, count: "" })).toEqual(invalid("count", REDEMPTION_MSG.countTooSmall));
    expect(buildRedemptionRequest({ name: "gift", quota: 1, count: 0 })).toEqual(invalid("count", REDEMPTION_MSG.countTooSmall));
    expect(buildRedemptionRequest({ name: "gift", quota: 1, count: REDEMPTION_COUNT_MAX + 1 })).toEqual(
      invalid("count", REDEMPTION_MSG.countTooLarge),
    );
    expect(buildRedemptionRequest({ name: "x".repeat(21), quota: 1, count: 1 })).toEqual(invalid("name", REDEMPTION_MSG.nameTooLong));
  });

  it("edits name and quota only, and an empty name is an error there", () => {
    expect(buildRedemptionRequest({ name: " new ", quota: "300", count: 99 }, 7)).toEqual({
      kind: "edit",
      body: { id: 7, name: "new", quota: 300 },
    });
    expect(buildRedemptionRequest({ name: "", quota: 300, count: 1 }, 7)).toEqual({
      kind: "invalid",
      field: "name",
      message: REDEMPTION_MSG.nameRequired,
    });
    expect(buildRedemptionRequest({ name: "n", quota: -1, count: 1 }, 7)).toEqual({
      kind: "invalid",
      field: "quota",
      message: REDEMPTION_MSG.quotaInvalid,
    });
  });

  it("names the download after the codes, one code per line", () => {
    expect(codesFile("gift", ["a".repeat(32), "b".repeat(32)])).toEqual({
      fileName: "gift.txt",
      text: `${"a".repeat(32)}\n${"b".repeat(32)}\n`,
    });
  });

  it("copies selected codes as name-code lines", () => {
    expect(
      selectedLines([
        { name: "a", key: "k1" },
        { name: "b", key: "k2" },
      ]),
    ).toBe("a k1\nb k2");
    expect(REDEMPTION_FORM_MSG.noneSelected).toBe("请至少选择一个兑换码！");
  });
});
