// Anthropic's token counts → OpenAI's `usage`, for whole answers and streams alike.
//
// Compaction (the `compact_20260112` context edit) summarises the conversation in an extra sampling
// round before the answer. Anthropic reports each round in `usage.iterations` (`type: "compaction"`
// or `"message"`), and the top-level `input_tokens`/`output_tokens` are the message rounds only:
// the compaction rounds are billed but left out of them
// (https://platform.claude.com/docs/en/build-with-claude/compaction). So every round that is not a
// message round is added to what is billed.
import { isObj, type Obj } from "@/lib/obj";
import { openAIUsage } from "../../openai/usage";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export interface AnthropicTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const noTokens = (): AnthropicTokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/**
 * OpenAI usage from Anthropic's counts. Anthropic's `input_tokens` excludes cached input, so
 * prompt_tokens adds cache reads and cache writes back in; `cached_tokens` are the reads and
 * `cache_write_tokens` the writes (lib/relay/openai/usage.ts reads both for billing).
 */
export function anthropicUsage(t: AnthropicTokens): Obj {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  return { ...openAIUsage(prompt, t.output), prompt_tokens_details: { cached_tokens: t.cacheRead, cache_write_tokens: t.cacheWrite } };
}

/** Reads a `usage` object's top-level counts into `into` (fields it lacks keep their value: a stream's message_delta carries only some). */
export function tokensOf(u: unknown, into: AnthropicTokens = noTokens()): AnthropicTokens {
  if (!isObj(u)) return into;
  if ("input_tokens" in u) into.input = num(u.input_tokens);
  if ("output_tokens" in u) into.output = num(u.output_tokens);
  if ("cache_read_input_tokens" in u) into.cacheRead = num(u.cache_read_input_tokens);
  if ("cache_creation_input_tokens" in u) into.cacheWrite = num(u.cache_creation_input_tokens);
  return into;
}

/**
 * The rounds of `usage.iterations` the top-level counts leave out (all but `message` rounds),
 * summed into `into` (replacing what it held: a later usage repeats the whole list). A usage
 * without the list leaves `into` as it was.
 */
export function roundsOf(u: unknown, into: AnthropicTokens = noTokens()): AnthropicTokens {
  if (!isObj(u) || !Array.isArray(u.iterations)) return into;
  into.input = into.output = into.cacheRead = into.cacheWrite = 0;
  for (const it of u.iterations) {
    if (!isObj(it) || it.type === "message") continue;
    into.input += num(it.input_tokens);
    into.output += num(it.output_tokens);
    into.cacheRead += num(it.cache_read_input_tokens);
    into.cacheWrite += num(it.cache_creation_input_tokens);
  }
  return into;
}

/** The counts billed: the top-level ones plus the rounds they leave out. */
export function withRounds(top: AnthropicTokens, rounds: AnthropicTokens): AnthropicTokens {
  return {
    input: top.input + rounds.input,
    output: top.output + rounds.output,
    cacheRead: top.cacheRead + rounds.cacheRead,
    cacheWrite: top.cacheWrite + rounds.cacheWrite,
  };
}
