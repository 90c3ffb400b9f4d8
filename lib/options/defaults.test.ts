import { describe, expect, it } from "vitest";
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES } from "@/lib/channels/catalog";
import { completionRatioRule, DEFAULT_COMPLETION_RATIO } from "@/lib/options/defaults/completion-ratio";
import { DEFAULT_MODEL_PRICE } from "@/lib/options/defaults/model-price";
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";

describe("default ModelRatio", () => {
  it("holds the inventory's listed ratios", () => {
    const listed: Record<string, number> = {
      "gpt-4": 15,
      "gpt-4-32k": 30,
      "gpt-4-turbo": 5,
      "gpt-4o": 1.25,
      "gpt-4o-2024-05-13": 2.5,
      "gpt-4o-mini": 0.075,
      "o1-preview": 7.5,
      "o1-mini": 1.5,
      "gpt-3.5-turbo": 0.25,
      "whisper-1": 15,
      "tts-1": 7.5,
      "tts-1-hd": 15,
      "text-embedding-3-small": 0.01,
      "text-embedding-3-large": 0.065,
      "text-embedding-ada-002": 0.05,
      "claude-3-5-sonnet-20241022": 1.5,
      "claude-3-opus-20240229": 7.5,
      "claude-3-haiku-20240307": 0.125,
      "gemini-1.5-pro-latest": 1.75,
      "glm-4-flash": 0,
      "gpt-4-gizmo-*": 15,
      "gpt-4o-gizmo-*": 2.5,
    };
    for (const [model, ratio] of Object.entries(listed)) expect(DEFAULT_MODEL_RATIO[model], model).toBe(ratio);
    // ERNIE models: RMB price per 1K tokens × 500 / 7.3.
    expect(DEFAULT_MODEL_RATIO["ERNIE-4.0-8K"]).toBeCloseTo((0.12 * 500) / 7.3, 10);
  });

  it("prices every default model of every channel type, per token or per call", () => {
    const unpriced: string[] = [];
    for (const type of CHANNEL_TYPE_CODES) {
      for (const model of CHANNEL_CATALOG[type].models) {
        if (!(model in DEFAULT_MODEL_RATIO) && !(model in DEFAULT_MODEL_PRICE)) unpriced.push(`${type}:${model}`);
      }
    }
    expect(unpriced).toEqual([]);
  });

  it("has no negative or non-finite ratio", () => {
    for (const [model, ratio] of Object.entries(DEFAULT_MODEL_RATIO)) expect(Number.isFinite(ratio) && ratio >= 0, model).toBe(true);
  });
});

describe("default ModelPrice", () => {
  it("holds the inventory's per-call prices", () => {
    expect(DEFAULT_MODEL_PRICE).toMatchObject({
      suno_music: 0.1,
      suno_lyrics: 0.01,
      "dall-e-3": 0.04,
      "gpt-4-gizmo-*": 0.1,
      mj_imagine: 0.1,
      mj_variation: 0.1,
      mj_reroll: 0.1,
      mj_blend: 0.1,
      mj_modal: 0.1,
      mj_zoom: 0.1,
      mj_shorten: 0.1,
      mj_high_variation: 0.1,
      mj_low_variation: 0.1,
      mj_pan: 0.1,
      mj_inpaint: 0,
      mj_custom_zoom: 0,
      mj_describe: 0.05,
      mj_upscale: 0.05,
      swap_face: 0.05,
      mj_upload: 0.05,
    });
  });
});

describe("default CompletionRatio", () => {
  it("writes new-api's rules out for every model of the ModelRatio table", () => {
    expect(Object.keys(DEFAULT_COMPLETION_RATIO).sort()).toEqual(Object.keys(DEFAULT_MODEL_RATIO).sort());
    const expected: Record<string, number> = {
      "gpt-4o": 4,
      "gpt-4o-2024-05-13": 3,
      "gpt-4-turbo": 3,
      "gpt-4-1106-preview": 3,
      "gpt-4": 2,
      "o1-mini": 4,
      "chatgpt-4o-latest": 3,
      "claude-2.1": 3,
      "claude-3-5-sonnet-20241022": 5,
      "gpt-3.5-turbo": 3,
      "gpt-3.5-turbo-0125": 3,
      "gpt-3.5-turbo-1106": 2,
      "mistral-large-latest": 3,
      "gemini-1.5-pro-latest": 4,
      "command-r": 3,
      "command-r-plus": 5,
      "command-r-08-2024": 4,
      command: 2,
      "ERNIE-Speed-8K": 2,
      "gpt-4-gizmo-*": 2,
      "gpt-4o-gizmo-*": 3,
      "gpt-4-all": 2,
      "text-embedding-3-small": 1,
    };
    for (const [model, ratio] of Object.entries(expected)) expect(DEFAULT_COMPLETION_RATIO[model], model).toBe(ratio);
    expect(DEFAULT_COMPLETION_RATIO["gpt-3.5-turbo-0613"]).toBeCloseTo(4 / 3, 10);
  });

  it("keeps the rule as the fallback for models outside the table", () => {
    expect(completionRatioRule("gpt-4o-2099-01-01")).toBe(4);
    expect(completionRatioRule("claude-3-9-future")).toBe(5);
    expect(completionRatioRule("some-unknown-model")).toBe(1);
  });
});
