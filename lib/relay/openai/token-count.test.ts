import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  COUNT_BUDGET,
  countChatPromptTokens,
  countCompletionTokens,
  countInputTokens,
  countJsonPromptTokens,
  countPromptPlan,
  countRequestPromptTokens,
  countTextTokens,
  countToolsTokens,
  countTtsCharacters,
  encodingForModel,
  estimateRequestPromptTokens,
  estimateTextTokens,
  estimateTokensFromBytes,
  IMAGE_TOKENS_DEFAULT,
  IMAGE_TOKENS_LOW,
  MAX_CALLS,
  planJsonPromptTokens,
  preloadTokenizers,
} from "./token-count";
import type { RelayMode } from "../types";

describe("tokens", () => {
  it("picks o200k for the gpt-4o generation and cl100k otherwise", () => {
    for (const m of ["gpt-4o", "gpt-4o-mini", "chatgpt-4o-latest", "o1", "o3-mini", "o4-mini", "gpt-4.1-nano", "gpt-5", "gpt-5-mini"]) {
      expect(encodingForModel(m)).toBe("o200k_base");
    }
    for (const m of ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "claude-3-5-sonnet", "qwen-max", "deepseek-chat"]) {
      expect(encodingForModel(m)).toBe("cl100k_base");
    }
  });

  it("counts text with the real encoders", async () => {
    await preloadTokenizers();
    expect(countTextTokens("", "gpt-4o")).toBe(0);
    expect(countTextTokens("hello world", "gpt-4o")).toBe(2);
    expect(countTextTokens("hello world", "gpt-3.5-turbo")).toBe(2);
    // The encoders differ on non-English text: o200k packs Chinese tighter.
    const zh = "这是一个用于测试分词器的中文句子，包含一些常见的词语。";
    expect(countTextTokens(zh, "gpt-4o")).toBeLessThan(countTextTokens(zh, "gpt-4"));
    // Special-token text is ordinary text, not an error.
    expect(countTextTokens("a <|endoftext|> b", "gpt-4")).toBeGreaterThan(3);
  });

  it("counts a chat prompt with new-api's formula", () => {
    // 3 (message) + 1 ("user") + 2 ("hello world") + 3 (reply primer)
    expect(countChatPromptTokens({ messages: [{ role: "user", content: "hello world" }] }, "gpt-4o")).toBe(9);
    // name adds its tokens + 1
    expect(countChatPromptTokens({ messages: [{ role: "user", content: "hello world", name: "bob" }] }, "gpt-4o")).toBe(11);
    // text parts count, a low-detail image is 85, a default one 765
    const parts = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hello world" },
            { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
      ],
    };
    expect(countChatPromptTokens(parts, "gpt-4o")).toBe(9 + IMAGE_TOKENS_LOW + IMAGE_TOKENS_DEFAULT);
  });

  it("counts every tool definition (new-api counted only the last one)", () => {
    const tool = (name: string) => ({
      type: "function",
      function: { name, description: "Get the weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
    });
    const one = countToolsTokens([tool("get_weather")], "gpt-4o");
    const two = countToolsTokens([tool("get_weather"), tool("get_time")], "gpt-4o");
    expect(one).toBeGreaterThan(8);
    expect(two - one).toBe(one - 8 - countTextTokens("get_weather", "gpt-4o") + countTextTokens("get_time", "gpt-4o"));
    const base = countChatPromptTokens({ messages: [{ role: "user", content: "hi" }] }, "gpt-4o");
    expect(countChatPromptTokens({ messages: [{ role: "user", content: "hi" }], tools: [tool("a"), tool("b")] }, "gpt-4o")).toBe(
      base + countToolsTokens([tool("a"), tool("b")], "gpt-4o"),
    );
  });

  it("counts assistant tool calls in the history", () => {
    const withCall = {
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
      ],
    };
    const bare = { messages: [{ role: "assistant", content: null }] };
    expect(countChatPromptTokens(withCall, "gpt-4o") - countChatPromptTokens(bare, "gpt-4o")).toBe(
      countTextTokens("get_weather", "gpt-4o") + countTextTokens('{"city":"Paris"}', "gpt-4o"),
    );
  });

  it("counts completions prompts and embedding inputs in every accepted shape", () => {
    expect(countInputTokens("hello world", "text-embedding-3-small")).toBe(2);
    expect(countInputTokens(["hello world", "hello world"], "text-embedding-3-small")).toBe(4);
    expect(countInputTokens([1, 2, 3], "text-embedding-3-small")).toBe(3);
    expect(countInputTokens([[1, 2], [3]], "text-embedding-3-small")).toBe(3);
    expect(countRequestPromptTokens("embeddings", { input: "hello world" }, "text-embedding-3-small")).toBe(2);
    expect(countRequestPromptTokens("images", { prompt: "a cat" }, "dall-e-3")).toBe(0);
  });

  it("gives identical counts for long messages on repeat (prompt cache) and per encoding", () => {
    const long = "Long conversation history line. ".repeat(100);
    const body = { messages: [{ role: "user", content: long }] };
    const first = countChatPromptTokens(body, "gpt-4o");
    expect(countChatPromptTokens(body, "gpt-4o")).toBe(first);
    expect(first).toBe(3 + 1 + countTextTokens(long, "gpt-4o") + 3);
    // the cache is per encoding: cl100k must not reuse o200k's count
    expect(countChatPromptTokens(body, "gpt-4")).toBe(3 + 1 + countTextTokens(long, "gpt-4") + 3);
    expect(countInputTokens([long, long], "text-embedding-3-small")).toBe(2 * countTextTokens(long, "text-embedding-3-small"));
  });

  it("counts long ordinary text exactly although it tokenizes it slice by slice", () => {
    const require = createRequire(import.meta.url);
    const o200k = require("gpt-tokenizer/encoding/o200k_base") as { countTokens: (t: string, o: object) => number };
    const cl100k = require("gpt-tokenizer/encoding/cl100k_base") as { countTokens: (t: string, o: object) => number };
    const lines = [
      "The relay bills every request by its tokens, counted by the upstream or locally.",
      "  Indented code: const x = { a: 1, b: [2, 3] }; // a comment   with  spaces",
      "它把每个请求按令牌计费，令牌数由上游报告，或在本地计算。",
      "Numbers 1234567 and 3.14159, URLs https://example.com/a/b?c=d, emoji 👋🏽 and tabs\there.",
      "",
    ];
    let text = "";
    for (let i = 0; text.length < 20_000; i++) text += `${lines[i % lines.length]}${i % 3 ? " " : "\n"}`;
    const options = { disallowedSpecial: new Set() };
    expect(countTextTokens(text, "gpt-4o")).toBe(o200k.countTokens(text, options));
    expect(countTextTokens(text, "gpt-4")).toBe(cl100k.countTokens(text, options));
  });

  it("cuts a long stretch without spaces into pieces, never inside a character, about one token off per cut", () => {
    const require = createRequire(import.meta.url);
    const o200k = require("gpt-tokenizer/encoding/o200k_base") as { countTokens: (t: string, o: object) => number };
    const emoji = `x${"👋🏽🎉".repeat(500)}`; // 3001 UTF-16 units, no word boundary, pairs at odd offsets
    const exact = o200k.countTokens(emoji, { disallowedSpecial: new Set() });
    const n = countTextTokens(emoji, "gpt-4o");
    expect(Math.abs(n - exact)).toBeLessThanOrEqual(Math.ceil(emoji.length / 128) * 2);
    expect(countTextTokens("a".repeat(300_000), "gpt-4o")).toBeGreaterThan(300_000 / 16);
  });

  it("estimates what lies beyond a count's budget, so a huge text costs bounded work and is still billed", () => {
    const prose = "Plain English words in a long document. ";
    const huge = prose.repeat(Math.ceil((4 * COUNT_BUDGET) / prose.length));
    const n = countTextTokens(huge, "gpt-4o");
    // The first COUNT_BUDGET characters tokenized (8 tokens a sentence), the rest at 4 characters a token.
    const exact = (COUNT_BUDGET / prose.length) * 8;
    const estimated = (huge.length - COUNT_BUDGET) / 4;
    expect(Math.abs(n - (exact + estimated)) / n).toBeLessThan(0.02);
    // One count's budget is shared by all texts of a prompt: a second huge message is estimated.
    const two = countChatPromptTokens(
      {
        messages: [
          { role: "user", content: huge },
          { role: "user", content: `${huge}!` },
        ],
      },
      "gpt-4o",
    );
    expect(two).toBeGreaterThan(n + estimateTextTokens(huge) - 10);
  });

  it("counts the text of an answer plus 7 per tool call, the one rule for completions counted locally", () => {
    expect(countCompletionTokens("hello world", 0, "gpt-4o")).toBe(2);
    expect(countCompletionTokens("get_weather{}", 2, "gpt-4o")).toBe(countTextTokens("get_weather{}", "gpt-4o") + 14);
  });

  it("estimates a request for its reservation with the counting walk but without the tokenizer", () => {
    const body = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "abcd".repeat(100) },
            { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(100_000)}` } },
          ],
        },
      ],
    };
    // 3 + "user" (1) + 400 ASCII characters (100) + a default image + 3: the base64 is not text.
    expect(estimateRequestPromptTokens("chat", body, "gpt-4o")).toBe(3 + 1 + 100 + IMAGE_TOKENS_DEFAULT + 3);
    expect(estimateRequestPromptTokens("embeddings", { input: ["你好", "abcdefgh"] }, "text-embedding-3-small")).toBe(2 + 2);
    expect(estimateRequestPromptTokens("speech", { input: "你好, world" }, "tts-1")).toBe(9);
  });

  it("counts TTS input in code points", () => {
    expect(countTtsCharacters("hello")).toBe(5);
    expect(countTtsCharacters("你好")).toBe(2);
    expect(countTtsCharacters("👋🏽!")).toBe(3);
    expect(countRequestPromptTokens("speech", { input: "你好, world" }, "tts-1")).toBe(9);
    expect(countRequestPromptTokens("speech", { input: "hello world" }, "gpt-4o-mini-tts")).toBe(2);
  });

  it("estimates small request bodies from their bytes close to (and mostly above) the real count", async () => {
    await preloadTokenizers();
    const enc = new TextEncoder();
    const bodies = [
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello in five words." }], max_tokens: 16 },
      {
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "You are a careful assistant." },
          { role: "user", content: "Explain the difference between TCP and UDP in two short paragraphs, with one example each." },
        ],
      },
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "请用三句话介绍一下长城的历史，以及它为什么如此有名。" }] },
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "function add(a, b) { return a + b; } // what does this do?" }] },
    ];
    for (const body of bodies) {
      const estimate = estimateTokensFromBytes(enc.encode(JSON.stringify(body)));
      const real = countRequestPromptTokens("chat", body, body.model);
      expect(estimate, JSON.stringify(body)).toBeGreaterThanOrEqual(real);
      expect(estimate, JSON.stringify(body)).toBeLessThanOrEqual(real * 3 + 20);
    }
    expect(estimateTokensFromBytes(new Uint8Array())).toBe(0);
    expect(estimateTokensFromBytes(enc.encode("abcd"))).toBe(1);
    expect(estimateTokensFromBytes(enc.encode("长城"))).toBe(2);
  });

  it("estimates long texts slice by slice exactly as character by character", () => {
    const reference = (text: string, from = 0) => {
      let ascii = 0;
      let wide = 0;
      for (let i = from; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c < 0x80) ascii++;
        else if (c < 0xdc00 || c > 0xdfff) wide++;
      }
      return wide + Math.ceil(ascii / 4);
    };
    const pieces = ["a", "word ", "长城", "👋🏽", "é", "\ud800", "\udc00", "x".repeat(9000)];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 20; round++) {
      let text = "";
      while (text.length < 40_000) text += pieces[next() % pieces.length];
      for (const from of [0, 1, 8191, 8192, 20_001]) expect(estimateTextTokens(text, from)).toBe(reference(text, from));
    }
    // All-ASCII slices take the native path: 2 MB of one letter is 512 Ki tokens.
    expect(estimateTextTokens("a".repeat(2 * 1024 * 1024))).toBe(512 * 1024);
  });

  // What the body thread hands the event loop for a large body: the count, all but the tokenizer.
  const planned = (mode: RelayMode, body: Record<string, unknown>, model = "gpt-4o") => {
    const plan = planJsonPromptTokens(mode, body, model);
    return { plan, count: countPromptPlan(structuredClone(plan), model) };
  };

  it("finishes a count planned off the event loop to exactly the count made in one go", async () => {
    await preloadTokenizers();
    const prose = "Plain English words in a long document. ";
    const huge = prose.repeat(Math.ceil((4 * COUNT_BUDGET) / prose.length));
    const cjk = "它把每个请求按令牌计费，令牌数由上游报告。".repeat(20_000);
    const tail = `${"a".repeat(COUNT_BUDGET + 3000)}👋🏽长城${"b".repeat(5000)}`; // pairs and CJK past the cut
    const bodies: [RelayMode, Record<string, unknown>][] = [
      ["chat", { messages: [{ role: "user", content: "a".repeat(2 * 1024 * 1024) }] }],
      [
        "chat",
        {
          messages: [
            { role: "user", content: huge },
            { role: "assistant", content: huge },
            { role: "user", content: "and?" },
          ],
        },
      ],
      ["chat", { messages: [{ role: "user", content: cjk }] }],
      ["chat", { messages: [{ role: "user", content: tail, name: "bob" }] }],
      ["chat", { messages: Array.from({ length: 30_000 }, (_, i) => ({ role: "user", content: `message ${i}` })) }],
      [
        "chat",
        {
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: huge },
                { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
              ],
            },
            { role: "assistant", content: null, tool_calls: [{ function: { name: "f", arguments: '{"a":1}' } }] },
          ],
          tools: [{ type: "function", function: { name: "f", description: "does f", parameters: { type: "object" } } }],
        },
      ],
      ["completions", { prompt: ["a".repeat(300_000), "short", [1, 2, 3]] }],
      ["embeddings", { input: Array.from({ length: 5000 }, (_, i) => `input number ${i} `.repeat(10)) }],
      ["rerank", { query: "which?", documents: [huge, "doc"] }],
      ["speech", { input: "你好, world" }],
      ["images", { prompt: huge }],
    ];
    for (const [mode, body] of bodies) {
      const { count } = planned(mode, body);
      expect(count, `${mode} ${JSON.stringify(body).slice(0, 80)}`).toBe(countJsonPromptTokens(mode, body, "gpt-4o"));
    }
  });

  it("plans cached texts past the budget like the count does: a text the cache knows is counted, not estimated", () => {
    const prose = "Plain English words in a long document. ";
    const filler = prose.repeat(Math.ceil((2 * COUNT_BUDGET) / prose.length));
    const remembered = `A conversation turn the cache has seen before, number ${Math.random()}. `.repeat(30); // cacheable length
    // Seen in a short prompt: counted within the budget, so cached.
    countJsonPromptTokens("chat", { messages: [{ role: "user", content: remembered }] }, "gpt-4o");
    const body = {
      messages: [
        { role: "user", content: filler },
        { role: "user", content: remembered },
      ],
    };
    const direct = countJsonPromptTokens("chat", body, "gpt-4o");
    const { plan, count } = planned("chat", body);
    expect(count).toBe(direct);
    expect(plan.texts).toContain(remembered);
    // Past the budget the text is still the exact count, not the estimate.
    expect(direct).toBe(
      countJsonPromptTokens("chat", { messages: [{ role: "user", content: filler }] }, "gpt-4o") +
        4 +
        countTextTokens(remembered, "gpt-4o"),
    );
  });

  it("hands the event loop a plan bounded by the count's budget, not by the body", () => {
    const single = planned("chat", { messages: [{ role: "user", content: "a".repeat(2 * 1024 * 1024) }] }).plan;
    expect(JSON.stringify(single).length).toBeLessThan(COUNT_BUDGET + 16 * 1024);
    // Tens of thousands of tiny texts: each is a call into the tokenizer, which the budget weighs.
    const tiny = { messages: Array.from({ length: 77_000 }, () => ({ role: "a", content: "" })) };
    const { plan, count } = planned("chat", tiny);
    expect(plan.texts.length).toBe(MAX_CALLS);
    expect(count).toBe(countJsonPromptTokens("chat", tiny, "gpt-4o"));
    expect(count).toBe(77_000 * 4 + 3); // 3 a message + "a" (1, counted or estimated) + 3 for the reply
  });
});
