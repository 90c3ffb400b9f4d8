import { describe, expect, it } from "vitest";
import { processSingleton } from "@/lib/singleton";

describe("processSingleton", () => {
  it("makes the value once and hands every caller that same value", () => {
    let made = 0;
    const make = () => ({ n: ++made });
    const first = processSingleton("test.once", make);
    expect(processSingleton("test.once", make)).toBe(first);
    expect(made).toBe(1);
  });

  it("keeps it where another copy of the module finds it: a registered symbol on globalThis", () => {
    const value = processSingleton("test.shared", () => ({}));
    expect((globalThis as unknown as Record<symbol, unknown>)[Symbol.for("qiao.test.shared")]).toBe(value);
  });

  it("keeps each key apart", () => {
    expect(processSingleton("test.a", () => "a")).toBe("a");
    expect(processSingleton("test.b", () => "b")).toBe("b");
  });
});
