import { readFileSync } from "node:fs";
import path from "node:path";
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { parseUpstreamError, RelayError } from "../../errors";
import type { ChannelConfig } from "../../types";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { remoteImageUrls } from "../../request/images";
import { cleanSchema, toBatchEmbed, toGenerateContent } from "./convert-request";
import { finishReason, GeminiStream, toChatCompletion, toEmbeddingList, usageOf } from "./convert-response";
import { gemini } from "./index";
import { unknownEventCounts } from "../unknown-events";
import { replayStream } from "@/tests/helpers/vendor-stream";
import { GenerateContentResponse } from "./api";

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8");
const json = (name: string) => JSON.parse(fixture(name)) as unknown;
const ctx = { id: "chatcmpl-1", created: 1700000000, model: "gemini-2.0-flash" };

/** The `data:` payloads of an SSE text, as Gemini frames them (CRLF between events). */
function events(sse: string): unknown[] {
  const out: unknown[] = [];
  const parser = createParser({ onEvent: (e) => out.push(JSON.parse(e.data)) });
  parser.feed(sse);
  return out;
}

const channel: ChannelConfig = {
  id: 7,
  type: 24,
  name: "g",
  key: "AIza-test",
  base_url: "",
  other: "",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
};

function input(body: Record<string, unknown>, o: Partial<BuildRequestInput> = {}): BuildRequestInput {
  return {
    channel,
    mode: "chat",
    upstreamModel: "gemini-2.0-flash",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(body),
    contentType: "application/json",
    stream: body.stream === true,
    json: body,
    ...o,
  };
}

describe("OpenAI chat → generateContent", () => {
  it("maps roles, system messages, tool calls and tool results", () => {
    const body = toGenerateContent({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
        { role: "user", content: "Weather and time in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "get_time", arguments: "" } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "18°C" },
        { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "14:00" }] },
        { role: "assistant", content: "18°C at 14:00." },
        { role: "user", content: "" },
        {
          role: "user",
          content: [
            { type: "text", text: "" },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }, { text: "Answer in English." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather and time in Paris?" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_time", args: {} } }],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { name: "get_weather", content: "18°C" } } },
          { functionResponse: { name: "get_time", response: { name: "get_time", content: "14:00" } } },
        ],
      },
      { role: "model", parts: [{ text: "18°C at 14:00." }] },
      { role: "user", parts: [{ text: "Thanks" }] },
    ]);
    expect((body.safetySettings as { threshold: string }[]).every((s) => s.threshold === "BLOCK_NONE")).toBe(true);
  });

  it("maps the generation parameters", () => {
    const body = toGenerateContent({
      messages: [{ role: "user", content: "hi" }],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: "END",
      n: 2,
      seed: 5,
      response_format: {
        type: "json_schema",
        json_schema: { name: "x", schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false } },
      },
      reasoning_effort: "low",
    });
    expect(body.generationConfig).toEqual({
      temperature: 0.3,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 200,
      stopSequences: ["END"],
      candidateCount: 2,
      seed: 5,
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { a: { type: "string" } } },
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    const off = toGenerateContent({
      messages: [{ role: "user", content: "hi" }],
      reasoning_effort: "minimal",
      response_format: { type: "json_object" },
    });
    expect(off.generationConfig).toEqual({ responseMimeType: "application/json", thinkingConfig: { thinkingBudget: 0 } });
  });

  it("keeps maxOutputTokens within the model's limit on the channel", () => {
    const json = { messages: [{ role: "user", content: "hi" }], max_tokens: 128_000 };
    expect(toGenerateContent(json, new Map(), "gemini-2.5-pro", 65_536).generationConfig).toEqual({ maxOutputTokens: 65_536 });
    expect(toGenerateContent({ ...json, max_tokens: 900 }, new Map(), "gemini-2.5-pro", 65_536).generationConfig).toEqual({
      maxOutputTokens: 900,
    });
    expect(toGenerateContent(json, new Map(), "my-tuned-model", null).generationConfig).toEqual({ maxOutputTokens: 128_000 });
  });

  it("sends the JSON schema as responseJsonSchema from Gemini 2.5 on, and thinking levels to Gemini 3", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    const json = {
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_schema", json_schema: { name: "x", schema } },
      reasoning_effort: "medium",
    };
    expect(toGenerateContent(json, new Map(), "gemini-2.5-flash").generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
    expect(toGenerateContent(json, new Map(), "gemini-3-pro-preview").generationConfig).toMatchObject({
      responseJsonSchema: schema,
      thinkingConfig: { thinkingLevel: "high", includeThoughts: true },
    });
    const level = (model: string, effort: string) =>
      (toGenerateContent({ ...json, reasoning_effort: effort }, new Map(), model).generationConfig as { thinkingConfig: unknown })
        .thinkingConfig;
    expect(level("gemini-3-flash-preview", "medium")).toEqual({ thinkingLevel: "medium", includeThoughts: true });
    expect(level("gemini-3-flash-preview", "none")).toEqual({ thinkingLevel: "minimal", includeThoughts: true });
    expect(level("gemini-3-pro-preview", "none")).toEqual({ thinkingLevel: "low", includeThoughts: true });
    expect(level("gemini-3-pro-preview", "low")).toEqual({ thinkingLevel: "low", includeThoughts: true });
  });

  it("declares tools with schemas Gemini accepts, and maps tool_choice", () => {
    const body = toGenerateContent({
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather of a city",
            strict: true,
            parameters: {
              $schema: "http://json-schema.org/draft-07/schema#",
              type: "object",
              properties: {
                city: { type: "string", description: "City", examples: ["Paris"] },
                unit: { type: ["string", "null"], enum: ["celsius", "fahrenheit"] },
                days: { type: "array", items: { type: "integer", exclusiveMinimum: 0 } },
              },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
        { type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather of a city",
            parameters: {
              type: "object",
              properties: {
                city: { type: "string", description: "City" },
                unit: { type: "string", nullable: true, enum: ["celsius", "fahrenheit"] },
                days: { type: "array", items: { type: "integer" } },
              },
              required: ["city"],
            },
          },
          { name: "now" },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    for (const [choice, mode] of [
      ["auto", "AUTO"],
      ["none", "NONE"],
      ["required", "ANY"],
    ]) {
      const b = toGenerateContent({
        messages: [{ role: "user", content: "hi" }],
        tools: body.tools && [{ type: "function", function: { name: "f" } }],
        tool_choice: choice,
      });
      expect(b.toolConfig).toEqual({ functionCallingConfig: { mode } });
    }
  });

  it("turns fetched images into inlineData parts", () => {
    const url = "https://example.com/cat.png";
    const messages = [
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url } },
        ],
      },
    ];
    expect(remoteImageUrls({ messages }, true)).toEqual([url]);
    const body = toGenerateContent({ messages }, new Map([[url, { mediaType: "image/png", base64: "iVBORw0KGgo=" }]]));
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
    ]);
    const doc = toGenerateContent({
      messages: [
        {
          role: "user",
          content: [
            { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0=" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "mp3" } },
          ],
        },
      ],
    });
    expect((doc.contents as { parts: unknown[] }[])[0]!.parts).toEqual([
      { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
      { inlineData: { mimeType: "audio/mp3", data: "UklGRg==" } },
    ]);
  });

  it("refuses what it cannot send, as the caller's fault", () => {
    const refuse = (body: Record<string, unknown>) => {
      try {
        toGenerateContent(body);
      } catch (e) {
        expect(e).toBeInstanceOf(RelayError);
        expect((e as RelayError).status).toBe(400);
        expect((e as RelayError).local).toBe(true);
        return (e as RelayError).message;
      }
      throw new Error("not refused");
    };
    expect(refuse({ messages: [] })).toMatch(/messages/);
    expect(refuse({ messages: [{ role: "system", content: "only system" }] })).toMatch(/no user or assistant/);
    expect(refuse({ messages: [{ role: "tool", tool_call_id: "nope", content: "x" }] })).toMatch(/nope/);
    expect(
      refuse({
        messages: [{ role: "assistant", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{bad" } }] }],
      }),
    ).toMatch(/not valid JSON/);
  });

  it("cleans nested schemas and keeps what Gemini knows", () => {
    expect(cleanSchema({ anyOf: [{ type: "string", const: "a" }, { $ref: "#/x" }], default: 1, title: "t" })).toEqual({
      anyOf: [{ type: "string" }, {}],
      default: 1,
      title: "t",
    });
  });

  it("builds batchEmbedContents and refuses token arrays", () => {
    expect(toBatchEmbed({ input: ["a", "b"], dimensions: 256 }, "models/text-embedding-004")).toEqual({
      requests: [
        { model: "models/text-embedding-004", content: { parts: [{ text: "a" }] }, outputDimensionality: 256 },
        { model: "models/text-embedding-004", content: { parts: [{ text: "b" }] }, outputDimensionality: 256 },
      ],
    });
    expect(() => toBatchEmbed({ input: [[1, 2, 3]] }, "models/x")).toThrow(RelayError);
  });
});

describe("generateContent answers → chat.completion", () => {
  it("joins text, keeps thoughts apart and reads the usage", () => {
    expect(toChatCompletion(json("generate-content.json"), ctx)).toEqual({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1700000000,
      model: "gemini-2.5-flash",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Hello! How can I help you today?",
            reasoning_content: "The user greets me; a short greeting back fits.",
          },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 11,
        completion_tokens: 30,
        total_tokens: 41,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 21 },
      },
    });
  });

  it("turns functionCall parts into tool calls", () => {
    const answer = toChatCompletion(json("generate-content-tool-call.json"), ctx) as {
      choices: { message: Record<string, unknown>; finish_reason: string }[];
    };
    const [choice] = answer.choices;
    expect(choice!.finish_reason).toBe("tool_calls");
    expect(choice!.message.content).toBeNull();
    const calls = choice!.message.tool_calls as { id: string; type: string; function: { name: string; arguments: string } }[];
    expect(calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["function", "get_weather", { city: "Paris", unit: "celsius" }],
      ["function", "get_time", { tz: "Europe/Paris" }],
    ]);
    expect(calls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
  });

  it("answers a blocked prompt with content_filter and the prompt's tokens", () => {
    expect(toChatCompletion(json("generate-content-blocked.json"), ctx)).toMatchObject({
      choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "content_filter" }],
      usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12 },
    });
  });

  it("maps finish reasons per candidate and adds tool-use prompt tokens", () => {
    expect(toChatCompletion(json("generate-content-max-tokens.json"), ctx)).toMatchObject({
      choices: [
        { index: 0, message: { content: "Once upon a" }, finish_reason: "length" },
        { index: 1, message: { content: "" }, finish_reason: "content_filter" },
      ],
      usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
    });
    expect(["RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"].map((r) => finishReason(r, false))).toEqual(
      Array(4).fill("content_filter"),
    );
    expect(finishReason("OTHER", false)).toBe("stop");
    expect(finishReason(undefined, false)).toBeNull();
    expect(usageOf(undefined)).toBeUndefined();
  });

  it("reads Gemini's error bodies of failed calls (the relay's parseUpstreamError)", () => {
    expect(parseUpstreamError(400, fixture("error-api-key.json"))).toMatchObject({
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
      code: 400,
    });
    expect(parseUpstreamError(429, fixture("error-quota.json")).message).toBe("Resource has been exhausted (e.g. check quota).");
  });

  it("turns an error body into OpenAI's error object", () => {
    expect(toChatCompletion(json("error-invalid-argument.json"), ctx)).toEqual({
      error: {
        message: "* GenerateContentRequest.contents: contents is not specified\n",
        type: "INVALID_ARGUMENT",
        param: null,
        code: 400,
      },
    });
  });
});

describe("thought signatures", () => {
  it("carry a call's signature out in extra_content and back on the replayed call", () => {
    const answer = toChatCompletion(json("generate-content-signature.json"), ctx) as {
      choices: { message: { tool_calls: { id: string; type: string; function: unknown; extra_content?: unknown }[] } }[];
    };
    const calls = answer.choices[0]!.message.tool_calls;
    expect(calls[0]!.extra_content).toEqual({
      google: { thought_signature: "CiQBcsjafJ0nV9tqXOo1mo2hrIt0Ca3VBeKPaLwDcmRUAdW0kssKbQFyyNp8r4Y=" },
    });
    expect(calls[1]).not.toHaveProperty("extra_content");
    const replay = (model: string, toolCalls: unknown[]) =>
      (
        toGenerateContent(
          {
            messages: [
              { role: "user", content: "Weather and time?" },
              { role: "assistant", content: null, tool_calls: toolCalls },
            ],
          },
          new Map(),
          model,
        ).contents as { parts: Record<string, unknown>[] }[]
      )[1]!.parts.map((p) => p.thoughtSignature);
    expect(replay("gemini-3-pro-preview", calls)).toEqual(["CiQBcsjafJ0nV9tqXOo1mo2hrIt0Ca3VBeKPaLwDcmRUAdW0kssKbQFyyNp8r4Y=", undefined]);
    const bare = calls.map(({ id, type, function: f }) => ({ id, type, function: f }));
    // Gemini 3 refuses a replayed call without a signature: the first call gets Google's sentinel.
    expect(replay("gemini-3-pro-preview", bare)).toEqual(["skip_thought_signature_validator", undefined]);
    expect(replay("gemini-2.5-flash", bare)).toEqual([undefined, undefined]);
  });
});

describe("streamGenerateContent events → chunks", () => {
  it("streams text with the role first and the usage on the finishing chunk", () => {
    const stream = new GeminiStream(ctx);
    const chunks = events(fixture("stream-text.sse")).map((e) => stream.event(e));
    expect(chunks.map((c) => (c as { choices: { delta: unknown; finish_reason: unknown }[] }).choices[0])).toEqual([
      { index: 0, delta: { role: "assistant", content: "Hello" }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: "! How can I help" }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: " you today?" }, logprobs: null, finish_reason: "stop" },
    ]);
    expect(chunks.map((c) => c!.usage)).toEqual([undefined, undefined, { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 }]);
    expect(chunks.every((c) => c!.id === "chatcmpl-1" && c!.object === "chat.completion.chunk")).toBe(true);
  });

  it("numbers streamed tool calls and ends with tool_calls", () => {
    const stream = new GeminiStream(ctx);
    const chunks = events(fixture("stream-tool-call.sse")).map(
      (e) =>
        stream.event(e) as {
          choices: { delta: { tool_calls: { index: number; function: { name: string } }[] }; finish_reason: string | null }[];
        },
    );
    expect(chunks.map((c) => c.choices[0]!.delta.tool_calls.map((t) => [t.index, t.function.name]))).toEqual([
      [[0, "get_weather"]],
      [[1, "get_time"]],
    ]);
    expect(chunks.map((c) => c.choices[0]!.finish_reason)).toEqual([null, "tool_calls"]);
  });

  it("passes a blocked prompt and an error event on", () => {
    expect(new GeminiStream(ctx).event(json("generate-content-blocked.json"))).toMatchObject({
      choices: [{ finish_reason: "content_filter" }],
      usage: { prompt_tokens: 12 },
    });
    expect(new GeminiStream(ctx).event(json("error-quota.json"))).toMatchObject({ error: { type: "RESOURCE_EXHAUSTED", code: 429 } });
    expect(new GeminiStream(ctx).event({})).toBeNull();
    expect(new GeminiStream(ctx).event({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 } })).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });
});

describe("batchEmbedContents answers → embeddings list", () => {
  it("lists the vectors, as floats or base64 float32", () => {
    const list = toEmbeddingList(json("batch-embed.json"), "text-embedding-004", 2, false) as {
      data: { index: number; embedding: number[] }[];
      usage: unknown;
    };
    expect(list.data.map((d) => d.index)).toEqual([0, 1]);
    expect(list.data[0]!.embedding).toEqual([0.013168523, -0.008711934, -0.046782676, 0.00069968984]);
    expect(list.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    const b64 = toEmbeddingList(json("batch-embed.json"), "m", 2, true) as { data: { embedding: string }[] };
    const back = new Float32Array(Uint8Array.from(Buffer.from(b64.data[1]!.embedding, "base64")).buffer);
    expect([...back].map((v) => Number(v.toFixed(6)))).toEqual([-0.007125, 0.025362, -0.012404, 0.042532]);
  });
});

describe("the Gemini adapter", () => {
  it("sends chat to generateContent with the key in a header, streams with alt=sse", () => {
    const whole = gemini.buildRequest(input({ model: "x", messages: [{ role: "user", content: "hi" }] })) as UpstreamRequest;
    expect(whole.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent");
    expect(whole.headers["x-goog-api-key"]).toBe("AIza-test");
    expect(whole.url).not.toContain("key=");
    const streamed = gemini.buildRequest(
      input(
        { messages: [{ role: "user", content: "hi" }], stream: true },
        { channel: { ...channel, base_url: "http://127.0.0.1:1/", other: "v1" } },
      ),
    ) as UpstreamRequest;
    expect(streamed.url).toBe("http://127.0.0.1:1/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
    expect(streamed.forcedIncludeUsage).toBe(true);
  });

  it("fetches prompt images first (async only then)", async () => {
    const body = {
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }],
    };
    const built = gemini.buildRequest(input(body));
    expect(built).toBeInstanceOf(Promise);
    const up = await built;
    expect(JSON.parse(up.body as string).contents[0].parts).toEqual([{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }]);
    const bad = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:text/plain;base64,aGk=" } }] }] };
    await expect(gemini.buildRequest(input(bad))).rejects.toMatchObject({ status: 400, code: "invalid_image_url" });
  });

  it("sends embeddings to batchEmbedContents and refuses other modes", () => {
    const up = gemini.buildRequest(
      input(
        { model: "text-embedding-004", input: "hello" },
        { mode: "embeddings", upstreamModel: "text-embedding-004", clientPath: "/v1/embeddings" },
      ),
    ) as UpstreamRequest;
    expect(up.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents");
    expect(JSON.parse(up.body as string)).toEqual({
      requests: [{ model: "models/text-embedding-004", content: { parts: [{ text: "hello" }] } }],
    });
    expect(() => gemini.buildRequest(input({}, { mode: "images" }))).toThrow(/not supported/);
  });
});

describe("events Gemini does not document", () => {
  it("are counted, and the stream still ends with its finish and usage", () => {
    const streamed = gemini.buildRequest(input({ messages: [{ role: "user", content: "hi" }], stream: true })) as UpstreamRequest;
    const before = unknownEventCounts().get("gemini:no-candidates") ?? 0;
    const r = replayStream(streamed, `data: {"responseId":"x"}\r\n\r\n${fixture("stream-text.sse")}`);
    expect(unknownEventCounts().get("gemini:no-candidates")).toBe(before + 1);
    expect(r.text).toBe("Hello! How can I help you today?");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded answers and events fit the schema", () => {
    for (const name of ["generate-content.json", "generate-content-tool-call.json", "generate-content-blocked.json"])
      expect(GenerateContentResponse.safeParse(json(name)).success).toBe(true);
    for (const e of events(fixture("stream-tool-call.sse"))) expect(GenerateContentResponse.safeParse(e).success).toBe(true);
  });
});
