// The limit options' shapes: what UserRateLimits, GroupRateLimits and ModelRateLimits accept and
// the texts they refuse with (a record of three names, not an object schema: see registry.ts).
import { describe, expect, it } from "vitest";
import { parseOption } from "@/lib/options/registry";

const refusal = (key: string, raw: string) => {
  const r = parseOption(key, raw);
  return r.ok ? null : r.message;
};

describe("limit options", () => {
  it("accept any of rpm, tpm and concurrency per group, and per group and model", () => {
    const user = parseOption("UserRateLimits", '{"default": {"rpm": 60, "tpm": 100000}, "*": {"concurrency": 5}}');
    expect(user.ok && user.value).toEqual({ default: { rpm: 60, tpm: 100000 }, "*": { concurrency: 5 } });
    const model = parseOption("ModelRateLimits", '{"default": {"gpt-4o": {"rpm": 60}}}');
    expect(model.ok && model.value).toEqual({ default: { "gpt-4o": { rpm: 60 } } });
    expect(parseOption("GroupRateLimits", '{"vip": {}}').ok).toBe(true);
  });

  it("refuse other names, negative or fractional counts, and non-objects", () => {
    expect(refusal("UserRateLimits", '{"default": {"rpd": 1}}')).toMatch(/只能设置 rpm、tpm、concurrency/);
    expect(refusal("UserRateLimits", '{"default": {"rpm": -1}}')).toMatch(/不能小于 0/);
    expect(refusal("GroupRateLimits", '{"default": {"tpm": 1.5}}')).toMatch(/必须是整数/);
    expect(refusal("GroupRateLimits", '{"default": 5}')).toMatch(/应为形如/);
    expect(refusal("ModelRateLimits", '{"default": {"gpt-4o": [1]}}')).toMatch(/应为形如/);
  });
});
