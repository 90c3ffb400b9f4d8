// The token usage of one call, normalised across vendors: what billing prices and logs record.

/**
 * Token usage of one request, normalised across vendors.
 *
 * Invariants (enforced by `clampUsage` in lib/billing/price.ts):
 * - `prompt_tokens` counts ALL input tokens: uncached text, cache reads (`cached_tokens`), cache
 *   writes (`cache_write_tokens`) and audio input (`audio_input_tokens`). Vendors that report cache
 *   reads/writes separately from input (Anthropic) are summed into it by their adapter.
 * - `completion_tokens` counts ALL output tokens, including `reasoning_tokens` and
 *   `audio_output_tokens`.
 * - `total_tokens` = prompt_tokens + completion_tokens.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  audio_input_tokens: number;
  audio_output_tokens: number;
}

export function emptyUsage(): Usage {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    audio_input_tokens: 0,
    audio_output_tokens: 0,
  };
}

/** Prompt + completion with every detail field zero. */
export function simpleUsage(prompt: number, completion: number): Usage {
  const u = emptyUsage();
  u.prompt_tokens = prompt;
  u.completion_tokens = completion;
  u.total_tokens = prompt + completion;
  return u;
}
