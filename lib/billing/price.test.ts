import { describe, expect, it } from "vitest";
import { simpleUsage, type Usage } from "./usage";
import { breakdownJsonOpen, clampUsage, decimalToRat, estimateReserve, quotaForImages, quotaForSpeech, quotaForTokens } from "./price";
import { type Pricing, resolvePricing } from "./ratios";
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";
import { DEFAULT_COMPLETION_RATIO } from "@/lib/options/defaults/completion-ratio";

function ratio(modelRatio: number, over: Partial<Pricing> = {}): Pricing {
  return {
    kind: "ratio",
    model: "m",
    modelRatio,
    modelPrice: -1,
    completionRatio: 1,
    groupRatio: 1,
    cacheRatio: 1,
    cacheWriteRatio: 1,
    audioRatio: 20,
    audioCompletionRatio: 2,
    usedDefaultRatio: false,
    unknownGroup: false,
    ...over,
  };
}
function price(modelPrice: number, over: Partial<Pricing> = {}): Pricing {
  return ratio(0, { kind: "price", modelPrice, ...over });
}
const usage = (u: Partial<Usage>): Usage => ({ ...simpleUsage(u.prompt_tokens ?? 0, u.completion_tokens ?? 0), ...u });

describe("quotaForTokens (ratio)", () => {
  it("gpt-3.5-turbo: 0.25 × (1000 + 500 × 3) = 625", () => {
    const r = quotaForTokens(ratio(0.25, { completionRatio: 3 }), usage({ prompt_tokens: 1000, completion_tokens: 500 }));
    expect(r.quota).toBe(625);
    expect(r.breakdown).toEqual({ model_ratio: 0.25, completion_ratio: 3, group_ratio: 1, model_price: -1 });
  });

  it("gpt-4o with prompt cache: 1.25 × (93 + 1024 × 0.5 + 18 × 4) = 846.25 → 846", () => {
    const r = quotaForTokens(
      ratio(1.25, { completionRatio: 4, cacheRatio: 0.5 }),
      usage({ prompt_tokens: 1117, completion_tokens: 18, cached_tokens: 1024 }),
    );
    expect(r.quota).toBe(846);
    expect(r.breakdown).toMatchObject({ cache_tokens: 1024, cache_ratio: 0.5 });
  });

  it("group ratio multiplies: 0.075 × 1.5 × (10 + 10 × 4) = 5.625 → 6", () => {
    expect(
      quotaForTokens(ratio(0.075, { completionRatio: 4, groupRatio: 1.5 }), usage({ prompt_tokens: 10, completion_tokens: 10 })).quota,
    ).toBe(6);
  });

  it("rounds once, exactly, half up: 0.285 × 100 = 28.5 → 29 (float64 gives 28.499999999999996)", () => {
    expect(0.285 * 100).toBeLessThan(28.5);
    expect(quotaForTokens(ratio(0.285), usage({ prompt_tokens: 100 })).quota).toBe(29);
    // new-api rounded completion × ratio first: (1 + round(1 × 0.4)) × 1 = 1; exact once: 1.4 → 1
    expect(quotaForTokens(ratio(1, { completionRatio: 0.4 }), usage({ prompt_tokens: 1, completion_tokens: 1 })).quota).toBe(1);
    // 2 × (1 + 3 × 0.25) = 3.5 → 4
    expect(quotaForTokens(ratio(2, { completionRatio: 0.25 }), usage({ prompt_tokens: 1, completion_tokens: 3 })).quota).toBe(4);
  });

  it("minimum 1 when the ratio is not 0; 0 when the model or group ratio is 0", () => {
    expect(quotaForTokens(ratio(0.0001), usage({ prompt_tokens: 10 })).quota).toBe(1);
    expect(quotaForTokens(ratio(0.5), usage({})).quota).toBe(1);
    expect(quotaForTokens(ratio(0), usage({ prompt_tokens: 1_000_000 })).quota).toBe(0);
    expect(quotaForTokens(ratio(1, { groupRatio: 0 }), usage({ prompt_tokens: 1_000_000 })).quota).toBe(0);
  });

  it("audio (gpt-4o-audio): 1.25 × (40 + 60 × 40 + 20 × 4 + 30 × 40 × 2) = 1.25 × 4920 = 6150", () => {
    const r = quotaForTokens(
      ratio(1.25, { completionRatio: 4, audioRatio: 40, audioCompletionRatio: 2 }),
      usage({ prompt_tokens: 100, audio_input_tokens: 60, completion_tokens: 50, audio_output_tokens: 30 }),
    );
    expect(r.quota).toBe(6150);
    expect(r.breakdown).toMatchObject({
      audio: true,
      audio_ratio: 40,
      audio_completion_ratio: 2,
      audio_input: 60,
      audio_output: 30,
      text_input: 40,
      text_output: 20,
    });
  });

  it("cache writes (Claude): 1.5 × (200 + 600 × 0.1 + 200 × 1.25 + 100 × 5) = 1.5 × 1010 = 1515", () => {
    const r = quotaForTokens(
      ratio(1.5, { completionRatio: 5, cacheRatio: 0.1, cacheWriteRatio: 1.25 }),
      usage({ prompt_tokens: 1000, cached_tokens: 600, cache_write_tokens: 200, completion_tokens: 100 }),
    );
    expect(r.quota).toBe(1515);
    expect(r.breakdown).toMatchObject({ cache_tokens: 600, cache_ratio: 0.1, cache_creation_tokens: 200, cache_creation_ratio: 1.25 });
  });

  it("is exact for ratios such as ERNIE's 500/7.3 and tiny ones", () => {
    const ernie = 500 / 7.3; // 68.4931506849315
    expect(quotaForTokens(ratio(ernie), usage({ prompt_tokens: 1000 })).quota).toBe(68493);
    expect(decimalToRat(1e-7)).toEqual({ n: 1n, d: 10000000n });
    expect(decimalToRat(2.5e21)).toEqual({ n: 2500000000000000000000n, d: 1n });
  });
});

describe("per-call pricing", () => {
  it("price × 500 000 × group, regardless of usage: 0.04 × 500 000 × 1.5 = 30 000", () => {
    const r = quotaForTokens(price(0.04, { groupRatio: 1.5 }), usage({ prompt_tokens: 99999, completion_tokens: 99999 }));
    expect(r.quota).toBe(30000);
    expect(r.breakdown).toEqual({ model_ratio: 0, completion_ratio: 1, group_ratio: 1.5, model_price: 0.04 });
    expect(quotaForTokens(price(0), usage({ prompt_tokens: 5 })).quota).toBe(0);
    expect(quotaForTokens(price(0.000001), usage({})).quota).toBe(1); // 0.5 → 1 (half up, and minimum 1)
  });
});

describe("images", () => {
  it("dall-e-3 $0.04, 1024×1792 hd, n = 2: 0.04 × 2 × 1.5 × 2 × 500 000 = 120 000", () => {
    const r = quotaForImages(price(0.04, { model: "dall-e-3" }), { size: "1024x1792", quality: "hd", n: 2 });
    expect(r.quota).toBe(120000);
    expect(r.breakdown).toMatchObject({
      image: true,
      image_size: "1024x1792",
      image_quality: "hd",
      image_n: 2,
      image_size_ratio: 2,
      image_quality_ratio: 1.5,
      model_price: 0.04,
    });
  });

  it("dall-e-3 hd at 1024² doubles; sizes 256²/512² scale 0.4/0.45", () => {
    expect(quotaForImages(price(0.04, { model: "dall-e-3" }), { size: "1024x1024", quality: "hd" }).quota).toBe(40000);
    expect(quotaForImages(price(0.02, { model: "dall-e-2" }), { size: "256x256", n: 3 }).quota).toBe(12000);
    // ratio-priced: price = 0.0025 × ratio 8 = 0.02; × 0.45 × 500 000 = 4500
    expect(quotaForImages(ratio(8, { model: "dall-e-2" }), { size: "512x512" }).quota).toBe(4500);
  });
});

describe("speech", () => {
  it("tts-1 bills characters: 7.5 × 100 = 750", () => {
    expect(quotaForSpeech(ratio(7.5), 100).quota).toBe(750);
  });
});

describe("estimateReserve", () => {
  const gpt4o = ratio(1.25, { completionRatio: 4 });
  it("prompt + max_tokens × completion ratio: 1.25 × (1000 + 200 × 4) = 2250", () => {
    expect(estimateReserve(gpt4o, { promptTokens: 1000, maxTokens: 200 })).toBe(2250);
  });
  it("PreConsumedQuota tokens when max_tokens is absent: 1.25 × (1000 + 500 × 4) = 3750", () => {
    expect(estimateReserve(gpt4o, { promptTokens: 1000 })).toBe(3750);
    expect(estimateReserve(gpt4o, { promptTokens: 1000, maxTokens: null, preConsumedTokens: 100 })).toBe(1750);
  });
  it("n choices reserve n completion budgets: 1.25 × (1000 + 3 × 200 × 4) = 4250", () => {
    expect(estimateReserve(gpt4o, { promptTokens: 1000, maxTokens: 200, choices: 3 })).toBe(4250);
    // Without max_tokens: 128 × 500 × 4 = 256 000 completion units, + 10 prompt, × 1.25.
    expect(estimateReserve(gpt4o, { promptTokens: 10, choices: 128 })).toBe(320_013);
    expect(estimateReserve(gpt4o, { promptTokens: 1000, maxTokens: 200, choices: 0 })).toBe(2250);
  });
  it("a 'hi' chat without max_tokens reserves well under 100 000 units on every built-in model", () => {
    // What an ordinary request from a small balance must get through with (ISSUE 9, item 7).
    for (const model of Object.keys(DEFAULT_MODEL_RATIO)) {
      const priced = resolvePricing(
        model,
        {
          modelRatio: DEFAULT_MODEL_RATIO,
          modelPrice: {},
          completionRatio: DEFAULT_COMPLETION_RATIO,
          groupRatio: { default: 1 },
          cacheRatio: {},
          selfUseModeEnabled: false,
        },
        "default",
      );
      if (!priced.ok) throw new Error(`${model} has no price`);
      expect(estimateReserve(priced.pricing, { promptTokens: 100 }), model).toBeLessThan(50_000);
    }
  });
  it("per call × n, and 0 for free models", () => {
    expect(estimateReserve(price(0.04), { promptTokens: 10, n: 2 })).toBe(40000);
    expect(estimateReserve(ratio(0), { promptTokens: 10 })).toBe(0);
  });
});

describe("breakdownJsonOpen", () => {
  it("is the breakdown's JSON without its closing brace, extra keys included", () => {
    const p = ratio(1.25, { completionRatio: 4, cacheRatio: 0.5 });
    const plain = quotaForTokens(p, usage({ prompt_tokens: 10, completion_tokens: 2 })).breakdown;
    expect(JSON.parse(`${breakdownJsonOpen(p, plain)}}`)).toEqual(plain);
    const cached = quotaForTokens(p, usage({ prompt_tokens: 1117, cached_tokens: 1024, completion_tokens: 18 })).breakdown;
    expect(JSON.parse(`${breakdownJsonOpen(p, cached)}}`)).toEqual(cached);
    expect(JSON.parse(`${breakdownJsonOpen(p, cached)},"frt":3}`)).toEqual({ ...cached, frt: 3 });
  });
});

describe("clampUsage", () => {
  it("leaves sane usage alone", () => {
    const u = usage({ prompt_tokens: 100, completion_tokens: 20, cached_tokens: 50 });
    expect(clampUsage(u)).toEqual({
      usage: u,
      flags: { nonNumeric: [], negative: [], fractional: [], absurd: [], inconsistent: [] },
      clamped: false,
    });
  });

  it("neutralises hostile values and says what it did", () => {
    const r = clampUsage(
      {
        prompt_tokens: 1e12,
        completion_tokens: -5,
        cached_tokens: Number.NaN,
        reasoning_tokens: 7.9,
        audio_output_tokens: "9" as unknown as number,
      },
      { fallback: { prompt_tokens: 120, completion_tokens: 30 } },
    );
    expect(r.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 30,
      total_tokens: 150,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 7,
      audio_input_tokens: 0,
      audio_output_tokens: 0,
    });
    expect(r.flags).toEqual({
      nonNumeric: ["cached_tokens", "audio_output_tokens"],
      negative: ["completion_tokens"],
      fractional: ["reasoning_tokens"],
      absurd: ["prompt_tokens"],
      inconsistent: [],
    });
    expect(r.clamped).toBe(true);
  });

  it("caps at contextLimit × factor without a fallback, and caps details by their totals", () => {
    const r = clampUsage({ prompt_tokens: 50_000_000, completion_tokens: 10, cached_tokens: 60_000_000, reasoning_tokens: 11 });
    expect(r.usage.prompt_tokens).toBe(20_000_000);
    expect(r.usage.cached_tokens).toBe(20_000_000);
    expect(r.usage.reasoning_tokens).toBe(10);
    expect(r.flags.absurd).toEqual(["prompt_tokens", "cached_tokens"]);
    expect(r.flags.inconsistent).toEqual(["reasoning_tokens"]);
    expect(clampUsage({ prompt_tokens: 5000 }, { contextLimit: 100, factor: 10 }).usage.prompt_tokens).toBe(1000);
  });

  it("keeps every sane usage exactly as the full check would, edge values included", () => {
    const cases = [
      {},
      { prompt_tokens: 0, completion_tokens: 0 },
      { prompt_tokens: 20_000_000, completion_tokens: 20_000_000 },
      { prompt_tokens: 10, cached_tokens: 10, completion_tokens: 4, reasoning_tokens: 4, audio_output_tokens: 4 },
      { prompt_tokens: 10, cached_tokens: 4, cache_write_tokens: 6, audio_input_tokens: 0 },
      { prompt_tokens: 10, cached_tokens: 3, cache_write_tokens: 3, audio_input_tokens: 4, completion_tokens: null },
    ];
    for (const c of cases) {
      const r = clampUsage(c as Partial<Usage>);
      expect(r.clamped).toBe(false);
      expect(r.usage.total_tokens).toBe((c.prompt_tokens ?? 0) + (c.completion_tokens ?? 0));
      expect(r.flags).toEqual({ nonNumeric: [], negative: [], fractional: [], absurd: [], inconsistent: [] });
    }
    // One past a limit, or a detail past its total, still goes through the full check.
    expect(clampUsage({ prompt_tokens: 20_000_001 }).flags.absurd).toEqual(["prompt_tokens"]);
    expect(clampUsage({ prompt_tokens: 10, cached_tokens: 6, cache_write_tokens: 5 }).flags.inconsistent).toEqual(["cache_write_tokens"]);
    expect(clampUsage({ completion_tokens: 3, audio_output_tokens: 4 }).flags.inconsistent).toEqual(["audio_output_tokens"]);
  });

  it("a clamped absurd usage cannot cost more than the cap", () => {
    const cap = quotaForTokens(ratio(1), clampUsage({ prompt_tokens: Number.MAX_VALUE }).usage).quota;
    expect(cap).toBe(20_000_000);
  });
});
