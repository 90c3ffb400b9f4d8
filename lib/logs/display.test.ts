import { describe, expect, it } from "vitest";
import { breakdownJsonOpen, quotaForImages, quotaForTokens } from "@/lib/billing/price";
import type { Pricing } from "@/lib/billing/ratios";
import { simpleUsage, type Usage } from "@/lib/billing/usage";
import { defaultOptionValues, type OptionValues } from "@/lib/options/registry";
import { LOG_TYPE } from "@/lib/logs/write";
import { priceFor } from "@/lib/relay/call/pricing";
import {
  explainCharge,
  firstTokenColor,
  firstTokenSeconds,
  latencyColor,
  parseOther,
  retryChain,
  statQuotaLabel,
  usageAnomalyText,
} from "./display";

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
const usage = (u: Partial<Usage>): Usage => ({ ...simpleUsage(u.prompt_tokens ?? 0, u.completion_tokens ?? 0), ...u });

/** What the relay writes into `other` for this charge, read back the way the page reads it. */
function logged(pricing: Pricing, u: Usage) {
  const result = quotaForTokens(pricing, u);
  const other = parseOther(`${breakdownJsonOpen(pricing, result.breakdown)}}`);
  return { quota: result.quota, explained: explainCharge(u, other, 500_000) };
}

describe("explainCharge", () => {
  it("writes out the prompt-cache example and lands on the charged quota", () => {
    const { quota, explained } = logged(
      ratio(1.25, { completionRatio: 4, cacheRatio: 0.5 }),
      usage({ prompt_tokens: 1117, completion_tokens: 18, cached_tokens: 1024 }),
    );
    expect(quota).toBe(846);
    expect(explained?.formula).toBe("(提示 93 + 缓存 1024 × 0.5 + 补全 18 × 4) × 1.25 × 1 = 846.25");
    expect(explained?.computed).toBe(846);
    expect(explained?.per_million).toEqual({ input: 2.5, output: 10 });
    expect(explained?.factors).toContainEqual({ label: "缓存倍率", value: "0.5" });
  });

  it("agrees with the billing for cache writes, audio, group ratios and rounding", () => {
    const cases: [Pricing, Usage][] = [
      [ratio(0.25, { completionRatio: 3 }), usage({ prompt_tokens: 1000, completion_tokens: 500 })],
      [ratio(0.075, { completionRatio: 4, groupRatio: 0.7 }), usage({ prompt_tokens: 333, completion_tokens: 77 })],
      [
        ratio(1.5, { cacheWriteRatio: 1.25, cacheRatio: 0.1 }),
        usage({ prompt_tokens: 5000, completion_tokens: 10, cached_tokens: 3000, cache_write_tokens: 1500 }),
      ],
      [
        ratio(1.25, { completionRatio: 4, audioRatio: 16, audioCompletionRatio: 2 }),
        usage({ prompt_tokens: 300, completion_tokens: 200, audio_input_tokens: 120, audio_output_tokens: 150 }),
      ],
      [ratio(0.0001), usage({ prompt_tokens: 1, completion_tokens: 0 })],
      [ratio(2, { groupRatio: 0 }), usage({ prompt_tokens: 10, completion_tokens: 10 })],
    ];
    for (const [pricing, u] of cases) {
      const { quota, explained } = logged(pricing, u);
      expect(explained?.computed, JSON.stringify({ pricing, u })).toBe(quota);
    }
  });

  it("names the audio terms", () => {
    const { explained } = logged(
      ratio(1.25, { completionRatio: 4, audioRatio: 16, audioCompletionRatio: 2 }),
      usage({ prompt_tokens: 300, completion_tokens: 200, audio_input_tokens: 120, audio_output_tokens: 150 }),
    );
    expect(explained?.formula).toBe("(提示 180 + 音频输入 120 × 16 + 补全 50 × 4 + 音频输出 150 × 16 × 2) × 1.25 × 1 = 8875");
  });

  it("writes out per-call and image prices", () => {
    const call = explainCharge(
      { prompt_tokens: 0, completion_tokens: 0 },
      { model_price: 0.02, group_ratio: 1.5, model_ratio: 0 },
      500_000,
    );
    expect(call?.formula).toBe("$0.02 × 1.5 × 500000 = 15000");
    expect(call?.computed).toBe(15000);
    // Another QuotaPerUnit: the price is explained with the option the relay billed with.
    const perMillion = explainCharge(
      { prompt_tokens: 0, completion_tokens: 0 },
      { model_price: 0.02, group_ratio: 1.5, model_ratio: 0 },
      1_000_000,
    );
    expect(perMillion?.formula).toBe("$0.02 × 1.5 × 1000000 = 30000");
    expect(perMillion?.computed).toBe(30000);
    const pricing: Pricing = { ...ratio(0), kind: "price", model: "dall-e-3", modelPrice: 0.04 };
    const image = quotaForImages(pricing, { size: "1024x1792", quality: "hd", n: 2 });
    const explained = explainCharge(
      { prompt_tokens: 0, completion_tokens: 0 },
      parseOther(`${breakdownJsonOpen(pricing, image.breakdown)}}`),
      500_000,
    );
    expect(explained?.formula).toBe("$0.04 × 2 × 1.5 × 2 × 1 × 500000 = 120000");
    expect(explained?.computed).toBe(image.quota);
  });

  it("has nothing to explain on rows without a breakdown", () => {
    expect(explainCharge({ prompt_tokens: 0, completion_tokens: 0 }, parseOther(""), 500_000)).toBeNull();
    expect(explainCharge({ prompt_tokens: 0, completion_tokens: 0 }, parseOther("not json"), 500_000)).toBeNull();
    expect(explainCharge({ prompt_tokens: 1, completion_tokens: 1 }, parseOther('{"frt":100}'), 500_000)).toBeNull();
  });
});

describe("row helpers", () => {
  it("colours latency and first token per spec §9", () => {
    expect([latencyColor(0), latencyColor(100), latencyColor(101), latencyColor(299), latencyColor(300)]).toEqual([
      "green",
      "green",
      "orange",
      "orange",
      "red",
    ]);
    expect([firstTokenColor(2.9), firstTokenColor(3), firstTokenColor(9.9), firstTokenColor(10)]).toEqual([
      "green",
      "orange",
      "orange",
      "red",
    ]);
  });

  it("reads frt and the retry chain", () => {
    expect(firstTokenSeconds(parseOther('{"frt":1250}'))).toBe(1.25);
    expect(firstTokenSeconds(parseOther('{"frt":-1000}'))).toBeNull();
    expect(firstTokenSeconds(parseOther("[]"))).toBeNull();
    expect(retryChain(parseOther('{"admin_info":{"use_channel":["3","7"]}}'))).toEqual(["3", "7"]);
    expect(retryChain(parseOther('{"admin_info":{}}'))).toEqual([]);
  });
});

describe("usageAnomalyText", () => {
  it("writes the expanded log row's line from other.usage_anomaly", () => {
    const other = { usage_anomaly: { prompt_tokens: 10, completion_tokens: 1e12, completion_limit: 100 } };
    expect(usageAnomalyText(other, { prompt_tokens: 10, completion_tokens: 100 })).toBe(
      "上游报告 提示 10 / 补全 1000000000000 tokens，超出本次请求可能的用量，已按 提示 10 / 补全 100 计费",
    );
    expect(usageAnomalyText({}, { prompt_tokens: 1, completion_tokens: 1 })).toBeNull();
  });
});

describe("one number everywhere (issue 20.19)", () => {
  it("writes the row's content line with the ratios its expanded billing shows", () => {
    const o = defaultOptionValues().values;
    const options = {
      ...o,
      ModelRatio: { "m-cheap": 0.075, "m-odd": 1.2345678 },
      CompletionRatio: { "m-cheap": 4 },
      GroupRatio: { default: 0.7 },
      ModelPrice: { "m-call": 0.015 },
    } as OptionValues;
    for (const model of ["m-cheap", "m-odd"]) {
      const { result, content } = priceFor(options, model, "default");
      if (!result.ok) throw new Error(model);
      const { explained } = logged(result.pricing, usage({ prompt_tokens: 10, completion_tokens: 10 }));
      const shown = Object.fromEntries(explained!.factors.map((f) => [f.label, f.value]));
      expect(content).toBe(`模型倍率 ${shown.模型倍率}，补全倍率 ${shown.补全倍率}，分组倍率 ${shown.分组倍率}`);
    }
    expect(priceFor(options, "m-cheap", "default").content).toBe("模型倍率 0.075，补全倍率 4，分组倍率 0.7");
    expect(priceFor(options, "m-call", "default").content).toBe("模型价格 0.015，分组倍率 0.7");
  });

  it("labels the stat badge for the type filter: consumption, top-ups, none for rows without quota", () => {
    expect(statQuotaLabel(0)).toBe("消耗额度");
    expect(statQuotaLabel(LOG_TYPE.consume)).toBe("消耗额度");
    expect(statQuotaLabel(LOG_TYPE.topup)).toBe("充值额度");
    expect(statQuotaLabel(LOG_TYPE.manage)).toBeNull();
    expect(statQuotaLabel(LOG_TYPE.system)).toBeNull();
    expect(statQuotaLabel(LOG_TYPE.error)).toBe("消耗额度");
  });
});
