// What stickiness is for: the vendor's prompt cache. Cache-read tokens are billed at the model's
// CacheRatio whichever way the vendor reports them (issue 22 item 5), shown per vendor family on
// its real usage shape: OpenAI's `prompt_tokens_details.cached_tokens` (also Qwen's, Zhipu's and
// xAI's), DeepSeek's `prompt_cache_hit_tokens`, Moonshot's top-level `cached_tokens`, Anthropic's
// `cache_read_input_tokens` (converted and passed through), the Responses API's
// `input_tokens_details.cached_tokens` and Gemini's `cachedContentTokenCount`. Each cached answer
// costs exactly ModelRatio × cached × (1 − CacheRatio) less than the same answer uncached.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { RESPONSES_USAGE, type ResponsesMock, startResponsesMock } from "@/tests/mocks/openai-responses";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "cache-test-model";
const MODEL_RATIO = 2;
const CACHE_RATIO = 0.25;
/** What `cached` tokens billed at CacheRatio save against the same tokens billed in full. */
const saving = (cached: number) => MODEL_RATIO * cached * (1 - CACHE_RATIO);

describe("cache reads are billed at CacheRatio on every vendor family", () => {
  let openaiMock: OpenAIMock;
  let claude: AnthropicMock;
  let responses: ResponsesMock;
  let google: GoogleMock;
  let relay: RelayServer;
  let user: Awaited<ReturnType<typeof seedUser>>;
  let openai: OpenAI;

  /** The quota of each consume row so far, oldest first. */
  const charges = async () => {
    await settleAll();
    const rows = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });
    return rows.map((r) => Number(r.quota));
  };
  const chat = (stream = false) =>
    stream
      ? openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }], stream: true }).then(async (s) => {
          for await (const _ of s);
        })
      : openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });

  beforeAll(async () => {
    openaiMock = await startOpenAIMock();
    claude = await startAnthropicMock({ apiKey: "sk-ant-mock" });
    responses = await startResponsesMock({ apiKey: "sk-upstream-key" });
    google = await startGoogleMock({ apiKey: "AIza-test-key" });
    relay = await startRelay("node");
    await updateOption("ModelRatio", JSON.stringify({ [MODEL]: MODEL_RATIO }));
    await updateOption("CompletionRatio", JSON.stringify({ [MODEL]: 1 }));
    await updateOption("CacheRatio", JSON.stringify({ [MODEL]: CACHE_RATIO }));
  });
  afterAll(async () => {
    await relay.close();
    await openaiMock.close();
    await claude.close();
    await responses.close();
    await google.close();
  });
  beforeEach(async () => {
    openaiMock.reset();
    claude.reset();
    responses.reset();
    google.reset();
    await clearRelayData();
    await updateOption("RetryTimes", "0");
    user = await seedUser();
    openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  });

  // Each vendor's usage for 1000 prompt tokens and 10 completion tokens, 800 of the prompt read
  // from the cache, on the channel type that reports it so.
  const families: Array<{ name: string; type: number; uncached: Record<string, unknown>; cached: Record<string, unknown> }> = [
    {
      name: "OpenAI prompt_tokens_details.cached_tokens",
      type: 1,
      uncached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
      cached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, prompt_tokens_details: { cached_tokens: 800 } },
    },
    {
      name: "Qwen (DashScope) prompt_tokens_details.cached_tokens",
      type: 17,
      uncached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
      cached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, prompt_tokens_details: { cached_tokens: 800 } },
    },
    {
      name: "DeepSeek prompt_cache_hit_tokens",
      type: 43,
      uncached: {
        prompt_tokens: 1000,
        completion_tokens: 10,
        total_tokens: 1010,
        prompt_tokens_details: undefined,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 1000,
      },
      cached: {
        prompt_tokens: 1000,
        completion_tokens: 10,
        total_tokens: 1010,
        prompt_tokens_details: undefined,
        prompt_cache_hit_tokens: 800,
        prompt_cache_miss_tokens: 200,
      },
    },
    {
      name: "Moonshot top-level cached_tokens",
      type: 25,
      uncached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, prompt_tokens_details: undefined },
      cached: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, prompt_tokens_details: undefined, cached_tokens: 800 },
    },
  ];

  for (const family of families) {
    it(`reads ${family.name}, whole and streamed`, async () => {
      await seedChannel({ type: family.type, base_url: openaiMock.url, models: MODEL });
      for (const stream of [false, true]) {
        openaiMock.setBehaviour({ usage: family.uncached });
        await chat(stream);
        openaiMock.setBehaviour({ usage: family.cached });
        await chat(stream);
      }
      expect(openaiMock.requests).toHaveLength(4);
      const [full, cached, fullStreamed, cachedStreamed] = await charges();
      expect(full).toBe(MODEL_RATIO * 1010);
      expect(full! - cached!).toBe(saving(800));
      expect(fullStreamed).toBe(full);
      expect(cachedStreamed).toBe(cached);
    });
  }

  it("reads Anthropic's cache_read_input_tokens, converted for an OpenAI caller and passed through for an Anthropic one", async () => {
    await seedChannel({ type: 14, base_url: claude.url, models: MODEL, key: "sk-ant-mock" });
    const anthropic = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
    const message = () => anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    // The same 1012-token prompt, nothing written to the cache, first read whole then 1000 of it from the cache.
    const uncached = { input_tokens: 1012, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 9 };
    const cached = { input_tokens: 12, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 9 };
    for (const call of [() => chat(false), () => chat(true), message]) {
      claude.setBehaviour({ usage: uncached });
      await call();
      claude.setBehaviour({ usage: cached });
      await call();
    }
    expect(claude.requests).toHaveLength(6);
    const quotas = await charges();
    for (let i = 0; i < quotas.length; i += 2) {
      expect(quotas[i]).toBe(MODEL_RATIO * (1012 + 9));
      expect(quotas[i]! - quotas[i + 1]!).toBe(saving(1000));
    }
  });

  it("reads the Responses API's input_tokens_details.cached_tokens", async () => {
    await seedChannel({ type: 1, base_url: responses.url, models: MODEL });
    await openai.responses.create({ model: MODEL, input: "hi" });
    const [quota] = await charges();
    const { input_tokens: input, output_tokens: output, input_tokens_details } = RESPONSES_USAGE;
    expect(quota).toBe(MODEL_RATIO * (input + output) - saving(input_tokens_details.cached_tokens));
  });

  it("reads Gemini's cachedContentTokenCount, converted and passed through", async () => {
    await seedChannel({ type: 24, base_url: google.url, models: MODEL, key: "AIza-test-key" });
    // Google's answer (generate-content.json): 11 prompt tokens, 4 of them cached; 9 answer and 21 thinking tokens.
    const full = MODEL_RATIO * (11 + 9 + 21);
    await chat(false);
    const ai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
    await ai.models.generateContent({ model: MODEL, contents: "hi" });
    expect(google.requests).toHaveLength(2);
    const quotas = await charges();
    expect(quotas).toEqual([full - saving(4), full - saving(4)]);
  });
});
