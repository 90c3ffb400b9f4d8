// admitCall keeps each key's plan (its checks and counters) per model and looks it up on every
// call: a plan, or a key's "nothing applies", must never outlive the group, user, model, kind of
// call or options it was worked out for. In this process's own store (no Redis, no primary).
import { afterEach, describe, expect, it } from "vitest";
import { admitCall, resetLocalLimits } from "@/lib/limits/engine";
import type { KeyLimits } from "@/lib/limits/rules";
import type { OptionValues } from "@/lib/options";

const options = (o: Record<string, unknown>) =>
  ({ UserRateLimits: {}, GroupRateLimits: {}, ModelRateLimits: {}, ...o }) as unknown as OptionValues;
const plainKey = (): KeyLimits => ({ id: 9, rpmLimit: 0, tpmLimit: 0, concurrencyLimit: 0, budgetQuota: 0, budgetPeriod: "" });

/** The call's x-ratelimit-limit-requests, or null when no limit applied (admitCall returned null). */
function rpmLimitOf(o: OptionValues, key: KeyLimits, userId: number, group: string, model: string, tasks = false): string | null {
  const admitted = admitCall(o, { key, userId, group }, model, tasks ? null : 10, 5);
  if (admitted instanceof Promise) throw new Error("the in-process store answers at once");
  if (!admitted) return null;
  admitted.release(10, 5);
  return admitted.headers?.["x-ratelimit-limit-requests"] ?? "none";
}

afterEach(() => resetLocalLimits());

describe("admitCall's plans", () => {
  it("follow the caller's group: a key with nothing to check in one group is limited in another, and back", () => {
    const o = options({ UserRateLimits: { vip: { rpm: 100 } } });
    const key = plainKey();
    expect(rpmLimitOf(o, key, 1, "default", "gpt-4o")).toBeNull();
    expect(rpmLimitOf(o, key, 1, "vip", "gpt-4o")).toBe("100");
    expect(rpmLimitOf(o, key, 1, "default", "gpt-4o")).toBeNull();
  });

  it("follow the model and the user: a model's limit is counted per user and applies to that model only", () => {
    const o = options({ ModelRateLimits: { default: { "gpt-4o": { rpm: 3 } } } });
    const key = plainKey();
    expect(rpmLimitOf(o, key, 1, "default", "gpt-4o-mini")).toBeNull();
    for (let i = 0; i < 3; i++) expect(rpmLimitOf(o, key, 1, "default", "gpt-4o")).toBe("3");
    expect(() => rpmLimitOf(o, key, 1, "default", "gpt-4o")).toThrow(/模型 gpt-4o 每分钟请求数已达上限 \(3\)/);
    // Another user on the same key object has a counter of their own.
    expect(rpmLimitOf(o, key, 2, "default", "gpt-4o")).toBe("3");
    expect(rpmLimitOf(o, key, 1, "default", "gpt-4o-mini")).toBeNull();
  });

  it("follow the options: a limit saved after a key's first call applies to its next", () => {
    const key = plainKey();
    expect(rpmLimitOf(options({}), key, 1, "default", "gpt-4o")).toBeNull();
    expect(rpmLimitOf(options({ GroupRateLimits: { default: { rpm: 50 } } }), key, 1, "default", "gpt-4o")).toBe("50");
  });

  it("follow the kind of call: a task submit does not count tokens, a relay call does", () => {
    const o = options({ UserRateLimits: { default: { tpm: 1000 } } });
    const key = plainKey();
    expect(rpmLimitOf(o, key, 1, "default", "suno", true)).toBeNull();
    expect(rpmLimitOf(o, key, 1, "default", "suno")).toBe("none");
    expect(rpmLimitOf(o, key, 1, "default", "suno", true)).toBeNull();
  });
});
