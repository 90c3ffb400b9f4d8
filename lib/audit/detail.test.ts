import { describe, expect, it } from "vitest";
import { AUDIT_TEXT_MAX, changedFields, clip, textChange } from "@/lib/audit/detail";

describe("clip", () => {
  it("keeps short values and cuts long texts, saying how long they were", () => {
    expect(clip("abc")).toBe("abc");
    expect(clip(42)).toBe(42);
    const long = "x".repeat(AUDIT_TEXT_MAX + 5);
    expect(clip(long)).toBe(`${"x".repeat(AUDIT_TEXT_MAX)}…（共 ${AUDIT_TEXT_MAX + 5} 个字符）`);
  });
});

describe("changedFields", () => {
  it("lists only the named fields that differ, as from → to", () => {
    const before = { name: "a", group: "default", weight: 1, models: "m1" };
    const after = { name: "b", group: "default", weight: 2, models: "m1" };
    expect(changedFields(before, after, ["name", "group", "weight"])).toEqual({
      name: { from: "a", to: "b" },
      weight: { from: 1, to: 2 },
    });
    expect(changedFields(before, before, ["name", "group"])).toEqual({});
  });
});

describe("textChange", () => {
  it("reduces two JSON objects to the entries added, changed and removed", () => {
    const from = JSON.stringify({ "gpt-4o": 2.5, "gpt-4o-mini": 0.075, old: 1 });
    const to = JSON.stringify({ "gpt-4o": 3, "gpt-4o-mini": 0.075, added: 4 });
    expect(textChange(from, to)).toEqual({ from: { "gpt-4o": 2.5, old: 1 }, to: { "gpt-4o": 3, added: 4 } });
  });
  it("keeps other texts whole, or clipped when long", () => {
    expect(textChange("false", "true")).toEqual({ from: "false", to: "true" });
    expect(textChange("[1]", "[2]")).toEqual({ from: "[1]", to: "[2]" });
    const long = "y".repeat(AUDIT_TEXT_MAX * 2);
    expect(textChange("", long)).toEqual({ from: "", to: clip(long) });
  });
});
