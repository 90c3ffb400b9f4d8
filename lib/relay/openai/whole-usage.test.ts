import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { extractResponseUsage, extractTranscriptText, quickUsage } from "./whole-usage";
import { countTextTokens } from "./token-count";
import { normalizeUsage } from "./usage";

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8");

describe("quickUsage", () => {
  it("reads the answer's own usage object without parsing the answer, or gives up", () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, prompt_tokens_details: { cached_tokens: 2 } };
    const answer = (content: string, extra = {}) =>
      JSON.stringify({ id: "x", choices: [{ index: 0, message: { role: "assistant", content } }], usage, ...extra });
    expect(quickUsage(answer("hi"))).toEqual(normalizeUsage(usage));
    // "usage" inside the content is escaped, so never taken for the answer's own; braces inside strings do not count.
    expect(quickUsage(answer('{"usage":{"prompt_tokens":999}}', { system_fingerprint: "fp_}{" }))).toEqual(normalizeUsage(usage));
    expect(quickUsage(JSON.stringify({ choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }))).toBeNull();
    expect(quickUsage('{"choices":[],"usage" : {"prompt_tokens":1}}')).toBeNull(); // unusual spacing: the full parse handles it
    expect(quickUsage('{"error":{"message":"x"},"usage":{"prompt_tokens":1,"total_tokens":1}}')).toBeNull();
    expect(quickUsage('{"choices":[]}')).toBeNull();
    expect(quickUsage('{"usage":{"prompt_tokens":1')).toBeNull(); // cut off
  });

  it("gives extractResponseUsage the same result as a full parse, and the parsed body on demand", () => {
    const text = fixture("openai-chat.json");
    const r = extractResponseUsage("chat", new TextEncoder().encode(text), { model: "gpt-4o", promptTokens: 5 });
    expect(r.usage).toEqual(normalizeUsage((JSON.parse(text) as { usage: unknown }).usage));
    expect(r.json).toEqual(JSON.parse(text));
  });
});

describe("extractResponseUsage", () => {
  it("takes the upstream usage of a chat completion, with cached tokens", () => {
    const r = extractResponseUsage("chat", fixture("openai-chat.json"), { model: "gpt-4o", promptTokens: 5 });
    expect(r.sawUpstreamUsage).toBe(true);
    expect(r.error).toBeNull();
    expect(r.usage).toMatchObject({ prompt_tokens: 1117, completion_tokens: 18, total_tokens: 1135, cached_tokens: 1024 });
    expect((r.json as { id: string }).id).toBe("chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
  });

  it("counts locally when usage is missing or all zero", () => {
    const body = JSON.parse(fixture("openai-chat.json")) as Record<string, unknown>;
    const content = "The image shows a wooden boardwalk path running through a lush green field or meadow.";
    for (const usage of [undefined, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }]) {
      const r = extractResponseUsage("chat", JSON.stringify({ ...body, usage }), { model: "gpt-4o", promptTokens: 42 });
      expect(r.sawUpstreamUsage).toBe(false);
      expect(r.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: countTextTokens(content, "gpt-4o") });
    }
    const tools = {
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
          },
        },
      ],
    };
    expect(extractResponseUsage("chat", JSON.stringify(tools), { model: "gpt-4o", promptTokens: 1 }).usage.completion_tokens).toBe(
      countTextTokens("f{}", "gpt-4o") + 7,
    );
  });

  it("treats a 200 carrying an error object as an error", () => {
    const r = extractResponseUsage(
      "chat",
      '{"error":{"message":"quota exceeded","type":"insufficient_quota","code":"insufficient_quota"}}',
      {
        model: "gpt-4o",
        promptTokens: 1,
      },
    );
    expect(r.error).toMatchObject({ message: "quota exceeded", type: "insufficient_quota" });
  });

  it("embeddings and rerank fall back to the prompt estimate; Jina's total-only usage is input", () => {
    expect(
      extractResponseUsage("embeddings", '{"object":"list","data":[],"model":"m","usage":{"prompt_tokens":8,"total_tokens":8}}', {
        model: "m",
        promptTokens: 3,
      }).usage,
    ).toMatchObject({
      prompt_tokens: 8,
      completion_tokens: 0,
    });
    expect(extractResponseUsage("moderations", '{"id":"modr-1","results":[]}', { model: "m", promptTokens: 3 }).usage.prompt_tokens).toBe(
      3,
    );
    expect(
      extractResponseUsage("rerank", '{"model":"jina-reranker-v2","usage":{"total_tokens":15},"results":[]}', {
        model: "m",
        promptTokens: 3,
      }).usage,
    ).toMatchObject({
      prompt_tokens: 15,
    });
    expect(
      extractResponseUsage(
        "rerank",
        '{"results":[],"meta":{"billed_units":{"search_units":1},"tokens":{"input_tokens":20,"output_tokens":0}}}',
        { model: "m", promptTokens: 3 },
      ).usage.prompt_tokens,
    ).toBe(20);
  });

  it("bills transcriptions by transcript tokens in every response format", () => {
    const text = "Hello there, general Kenobi.";
    const n = countTextTokens(text, "whisper-1");
    const srt = `1\n00:00:00,000 --> 00:00:01,500\nHello there,\n\n2\n00:00:01,500 --> 00:00:03,000\ngeneral Kenobi.\n`;
    const vtt = `WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there,\n\n00:00:01.500 --> 00:00:03.000\ngeneral Kenobi.\n`;
    expect(extractTranscriptText(srt, "srt")).toBe(text);
    expect(extractTranscriptText(vtt, "vtt")).toBe(text);
    for (const [body, fmt] of [
      [JSON.stringify({ text }), "json"],
      [text, "text"],
      [srt, "srt"],
      [vtt, "vtt"],
      [JSON.stringify({ task: "transcribe", language: "english", duration: 3, text, segments: [] }), "verbose_json"],
    ]) {
      expect(
        extractResponseUsage("transcriptions", body, { model: "whisper-1", promptTokens: 0, responseFormat: fmt }).usage,
      ).toMatchObject({
        prompt_tokens: 0,
        completion_tokens: n,
      });
    }
    const tokenUsage = {
      text,
      usage: {
        type: "tokens",
        input_tokens: 14,
        input_token_details: { text_tokens: 0, audio_tokens: 14 },
        output_tokens: 45,
        total_tokens: 59,
      },
    };
    expect(
      extractResponseUsage("transcriptions", JSON.stringify(tokenUsage), { model: "gpt-4o-transcribe", promptTokens: 0 }).usage,
    ).toMatchObject({
      prompt_tokens: 14,
      completion_tokens: 45,
    });
  });
});

describe("normalizeUsage", () => {
  it("reads OpenAI, DeepSeek, Anthropic and responses-style shapes", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 4, audio_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 3, audio_tokens: 1 },
      }),
    ).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      cached_tokens: 4,
      cache_write_tokens: 0,
      reasoning_tokens: 3,
      audio_input_tokens: 2,
      audio_output_tokens: 1,
    });
    expect(
      normalizeUsage({ prompt_tokens: 12, completion_tokens: 1, prompt_cache_hit_tokens: 8, prompt_cache_miss_tokens: 4 })?.cached_tokens,
    ).toBe(8);
    // Anthropic: input_tokens excludes cache reads and writes; Qiao's prompt_tokens includes them.
    expect(
      normalizeUsage({ input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 100, cache_creation_input_tokens: 50 }),
    ).toMatchObject({
      prompt_tokens: 160,
      cached_tokens: 100,
      cache_write_tokens: 50,
      total_tokens: 162,
    });
    expect(normalizeUsage(null)).toBeNull();
    expect(normalizeUsage({ foo: 1 })).toBeNull();
    expect(normalizeUsage({ prompt_tokens: "12", completion_tokens: Number.NaN })).toMatchObject({
      prompt_tokens: 0,
      completion_tokens: 0,
    });
  });
});
