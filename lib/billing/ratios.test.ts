import { describe, expect, it } from "vitest";
import {
  builtinCacheRatio,
  builtinCompletionRatio,
  isModelPriced,
  lookupRatio,
  resolvePricing,
  UNKNOWN_MODEL_RATIO,
  type PricingOptions,
} from "./ratios";

const options: PricingOptions = {
  modelRatio: { "gpt-4o": 1.25, "gpt-4o-mini": 0.075, "claude-3-5-sonnet*": 1.5, "claude-*": 2, "glm-4-flash": 0, broken: -1 },
  modelPrice: { "dall-e-3": 0.04, "gpt-4-gizmo-*": 0.1 },
  completionRatio: { "gpt-4o-mini": 5 },
  groupRatio: { default: 1, vip: 0.8, free: 0 },
};

describe("resolvePricing", () => {
  it("ratio-billed model with built-in completion and cache ratios", () => {
    const r = resolvePricing("gpt-4o", options, "vip");
    expect(r).toEqual({
      ok: true,
      pricing: {
        kind: "ratio",
        model: "gpt-4o",
        modelRatio: 1.25,
        modelPrice: -1,
        completionRatio: 4,
        groupRatio: 0.8,
        cacheRatio: 0.5,
        cacheWriteRatio: 1,
        audioRatio: 20,
        audioCompletionRatio: 2,
        usedDefaultRatio: false,
        unknownGroup: false,
      },
    });
  });

  it("lets the admin override a built-in completion ratio (new-api did not)", () => {
    const r = resolvePricing("gpt-4o-mini", options, "default");
    expect(r.ok && r.pricing.completionRatio).toBe(5);
  });

  it("prefers a per-call price, and matches * patterns by longest prefix", () => {
    const gizmo = resolvePricing("gpt-4-gizmo-g-abc123", options, "default");
    expect(gizmo.ok && gizmo.pricing).toMatchObject({ kind: "price", modelPrice: 0.1, modelRatio: 0 });
    const sonnet = resolvePricing("claude-3-5-sonnet-20241022", options, "default");
    expect(sonnet.ok && sonnet.pricing).toMatchObject({
      kind: "ratio",
      modelRatio: 1.5,
      completionRatio: 5,
      cacheRatio: 0.1,
      cacheWriteRatio: 1.25,
    });
    const haiku = resolvePricing("claude-3-haiku-20240307", options, "default");
    expect(haiku.ok && haiku.pricing.modelRatio).toBe(2);
    const free = resolvePricing("glm-4-flash", options, "default");
    expect(free.ok && free.pricing.modelRatio).toBe(0);
  });

  it("rejects unknown (and invalidly configured) models unless self-use mode is on", () => {
    for (const model of ["gpt-9-turbo", "broken"]) {
      const r = resolvePricing(model, options, "default");
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("model_price_error");
        expect(r.error.status).toBe(400);
        expect(r.error.message).toContain(model);
      }
    }
    const self = resolvePricing("gpt-9-turbo", { ...options, selfUseModeEnabled: true }, "default");
    expect(self.ok && self.pricing).toMatchObject({ kind: "ratio", modelRatio: UNKNOWN_MODEL_RATIO, usedDefaultRatio: true });
  });

  it("bills an unknown group at 1 and says so", () => {
    const r = resolvePricing("gpt-4o", options, "nobody");
    expect(r.ok && r.pricing).toMatchObject({ groupRatio: 1, unknownGroup: true });
    const free = resolvePricing("gpt-4o", options, "free");
    expect(free.ok && free.pricing).toMatchObject({ groupRatio: 0, unknownGroup: false });
  });
});

describe("built-in completion ratios (inventory table)", () => {
  it.each([
    ["gpt-3.5-turbo", 3],
    ["gpt-3.5-turbo-0125", 3],
    ["gpt-3.5-turbo-1106", 2],
    ["gpt-3.5-turbo-16k", 4 / 3],
    ["gpt-4o", 4],
    ["gpt-4o-2024-05-13", 3],
    ["gpt-4o-mini", 4],
    ["gpt-4-turbo", 3],
    ["gpt-4-0125-preview", 3],
    ["gpt-4", 2],
    ["gpt-4-32k", 2],
    ["gpt-4-all", 2],
    ["gpt-4-gizmo-*", 2],
    ["gpt-4o-gizmo-*", 3],
    ["o1-mini", 4],
    ["o1", 4],
    ["chatgpt-4o-latest", 3],
    ["claude-instant-1.2", 3],
    ["claude-2.1", 3],
    ["claude-3-opus-20240229", 5],
    ["mistral-large-latest", 3],
    ["gemini-1.5-pro-latest", 4],
    ["command-r", 3],
    ["command-r-plus", 5],
    ["command-r-08-2024", 4],
    ["command-r-plus-08-2024", 4],
    ["command-light", 2],
    ["deepseek-chat", 2],
    ["ERNIE-Speed-128K", 2],
    ["qwen-max", 1],
    // later OpenAI models the old rules mispriced
    ["gpt-4.1-mini", 4],
    ["gpt-5", 8],
    ["o3-mini", 4],
  ])("%s → %d", (model, expected) => {
    expect(builtinCompletionRatio(model as string)).toBeCloseTo(expected as number, 12);
  });

  it("cache ratios", () => {
    expect(builtinCacheRatio("gpt-4o-mini")).toBe(0.5);
    expect(builtinCacheRatio("deepseek-chat")).toBe(0.25);
    expect(builtinCacheRatio("claude-3-7-sonnet-20250219")).toBe(0.1);
    expect(builtinCacheRatio("qwen-max")).toBe(1);
    expect(builtinCacheRatio("gemini-2.0-flash")).toBe(0.25);
    expect(builtinCacheRatio("gemini-2.5-pro")).toBe(0.1);
    expect(builtinCacheRatio("gemini-3.1-pro-preview")).toBe(0.1);
    expect(builtinCacheRatio("gemini-1.5-pro")).toBe(1);
  });

  it("lookupRatio ignores invalid entries", () => {
    expect(lookupRatio({ a: Number.NaN, "a*": 3 }, "a")).toBe(3);
    expect(lookupRatio(undefined, "a")).toBeUndefined();
  });
});

describe("isModelPriced", () => {
  it("is exactly resolvePricing's refusal: a price, a ratio (exact or pattern, even 0) or self-use mode", () => {
    const models = ["gpt-4o", "claude-3-5-sonnet-20241022", "claude-x", "dall-e-3", "gpt-4-gizmo-g1", "glm-4-flash", "broken", "nobody"];
    for (const selfUseModeEnabled of [false, true]) {
      const o = { ...options, selfUseModeEnabled };
      for (const model of models) expect(isModelPriced(model, o), model).toBe(resolvePricing(model, o, "default").ok);
    }
    expect(models.filter((m) => !isModelPriced(m, options))).toEqual(["broken", "nobody"]);
  });
});
