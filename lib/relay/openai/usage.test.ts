import { describe, expect, it } from "vitest";
import { normalizeUsage } from "./usage";

describe("normalizeUsage: cache writes", () => {
  it("reads prompt_tokens_details.cache_write_tokens (the Claude adapters' OpenAI usage)", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 1212,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
      }),
    ).toMatchObject({ prompt_tokens: 1212, completion_tokens: 9, total_tokens: 1221, cached_tokens: 1000, cache_write_tokens: 200 });
  });

  it("still reads Anthropic's own counts, adding cache reads and writes to the prompt", () => {
    expect(
      normalizeUsage({ input_tokens: 12, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 9 }),
    ).toMatchObject({ prompt_tokens: 1212, cached_tokens: 1000, cache_write_tokens: 200 });
    expect(normalizeUsage({ prompt_tokens: 5, completion_tokens: 1 })).toMatchObject({ cache_write_tokens: 0 });
  });
});
