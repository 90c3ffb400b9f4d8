import { describe, expect, it } from "vitest";
import { DEFAULT_OUTPUT_CAP, outputLimit } from "./output-limits";
import { boundUsage, completionBound, PROMPT_ALLOWANCE, type PromptBounds, promptBound, promptQuickBound } from "./usage-bounds";
import type { Usage } from "./usage";

const usage = (prompt: number, completion: number, extra: Partial<Usage> = {}): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  cached_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  audio_input_tokens: 0,
  audio_output_tokens: 0,
  ...extra,
});

/** A prompt bound whose full part must not be read (it would count the prompt). */
const uncounted = (bytes: number): PromptBounds => ({
  promptQuickBound: promptQuickBound(bytes),
  get promptBound(): number {
    throw new Error("the prompt was counted");
  },
});
const counted = (bytes: number, local: number): PromptBounds => ({
  promptQuickBound: promptQuickBound(bytes),
  promptBound: promptBound(bytes, local),
});

describe("outputLimit", () => {
  it("knows the main families by their longest prefix, whatever the routing prefix", () => {
    expect(outputLimit("gpt-4o-2024-08-06")).toBe(16_384);
    expect(outputLimit("gpt-4")).toBe(8_192);
    expect(outputLimit("gpt-4.1-mini")).toBe(32_768);
    expect(outputLimit("o3-mini")).toBe(100_000);
    expect(outputLimit("gpt-5-nano")).toBe(128_000);
    expect(outputLimit("claude-3-5-sonnet-20241022")).toBe(8_192);
    expect(outputLimit("claude-opus-4-1-20250805")).toBe(32_000);
    expect(outputLimit("us.anthropic.claude-sonnet-4-20250514-v1:0")).toBe(64_000);
    expect(outputLimit("claude-sonnet-4-5-20250929")).toBe(64_000);
    expect(outputLimit("claude-sonnet-4-6")).toBe(128_000);
    expect(outputLimit("claude-opus-4-5-20251101")).toBe(64_000);
    expect(outputLimit("claude-opus-4-8")).toBe(128_000);
    expect(outputLimit("claude-opus-5-5")).toBe(128_000);
    expect(outputLimit("models/gemini-2.5-flash")).toBe(65_536);
    expect(outputLimit("deepseek-reasoner")).toBe(65_536);
    expect(outputLimit("qwen-plus-latest")).toBe(32_768);
    expect(outputLimit("glm-4.5-air")).toBe(98_304);
  });
  it("does not know a custom model; the cap is the largest limit it knows", () => {
    expect(outputLimit("my-model")).toBeNull();
    expect(DEFAULT_OUTPUT_CAP).toBe(131_072);
  });
});

describe("completionBound", () => {
  it("is the request's max_tokens per choice", () => {
    expect(completionBound({ max_tokens: 100 }, "gpt-4o")).toBe(100);
    expect(completionBound({ max_completion_tokens: 50, max_tokens: 100 }, "o3")).toBe(50);
    expect(completionBound({ max_output_tokens: 70 }, "gpt-5")).toBe(70);
    expect(completionBound({ max_tokens: 100, n: 3 }, "gpt-4o")).toBe(300);
    expect(completionBound({ max_tokens: 100, best_of: 4, n: 2 }, "gpt-3.5-turbo-instruct")).toBe(400);
  });
  it("else the model's output limit, else the cap", () => {
    expect(completionBound({}, "gpt-4o-mini")).toBe(16_384);
    expect(completionBound({ max_tokens: "9" }, "claude-3-haiku-20240307")).toBe(4_096);
    expect(completionBound(null, "my-model")).toBe(DEFAULT_OUTPUT_CAP);
  });
});

describe("boundUsage", () => {
  it("leaves sane usage alone without counting the prompt", () => {
    expect(boundUsage(usage(1_000, 90), 100, uncounted(200))).toBeNull();
    expect(boundUsage(usage(200 + PROMPT_ALLOWANCE, 100), 100, uncounted(200))).toBeNull();
  });

  it("bills absurd completion tokens at what the request could produce, keeping the vendor's numbers", () => {
    const raw = usage(10, 1e12, { reasoning_tokens: 1e12 });
    const out = boundUsage(usage(10, 20_000_000, { reasoning_tokens: 20_000_000 }), 100, uncounted(200), raw);
    expect(out?.usage).toEqual(usage(10, 100, { reasoning_tokens: 100 }));
    expect(out?.anomaly).toEqual({ prompt_tokens: 10, completion_tokens: 1e12, completion_limit: 100 });
  });

  it("counts the prompt only over the quick bound, and bills it at 4 × the count + the allowance", () => {
    // Over the bytes sent but within 4 × a count of 1 000: honest (a tokenizer that counts more).
    expect(boundUsage(usage(5_000, 5), 100, counted(300, 1_000))).toBeNull();
    const out = boundUsage(usage(1e9, 5, { cached_tokens: 1e9 }), 100, counted(300, 1_000));
    const limit = 4 * 1_000 + PROMPT_ALLOWANCE;
    expect(out?.usage).toEqual(usage(limit, 5, { cached_tokens: limit }));
    expect(out?.anomaly).toEqual({ prompt_tokens: 1e9, completion_tokens: 5, prompt_limit: limit, completion_limit: 100 });
  });

  it("a prompt the relay cannot size (files, hosted tools) is not bounded", () => {
    const unsized: PromptBounds = { promptQuickBound: promptQuickBound(300), promptBound: Number.POSITIVE_INFINITY };
    expect(boundUsage(usage(900_000, 5), 100, unsized)).toBeNull();
    expect(boundUsage(usage(900_000, 500), 100, unsized)?.anomaly).toEqual({
      prompt_tokens: 900_000,
      completion_tokens: 500,
      completion_limit: 100,
    });
  });

  it("the prompt bound is never under the bytes sent", () => {
    expect(promptBound(50_000, 10)).toBe(50_000 + PROMPT_ALLOWANCE);
  });
});
