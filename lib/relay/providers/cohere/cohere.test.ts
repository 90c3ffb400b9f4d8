import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import { cohere } from ".";
import { replayStream } from "@/tests/helpers/vendor-stream";
import type { UpstreamRequest } from "../types";
import { unknownEventCounts } from "../unknown-events";
import { CohereStreamEvent } from "./api";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const events = (sse: string) =>
  sse
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));

const channel: ChannelConfig = {
  id: 7,
  type: 34,
  name: "co",
  key: "co-key",
  base_url: "",
  other: "",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
};

function build(json: Record<string, unknown>, mode: "chat" | "rerank" | "embeddings" = "chat") {
  const body = JSON.stringify(json);
  return cohere.buildRequest({
    channel,
    mode,
    upstreamModel: String(json.model),
    clientPath: mode === "chat" ? "/v1/chat/completions" : `/v1/${mode}`,
    body,
    contentType: "application/json",
    stream: json.stream === true,
    json,
  }) as Exclude<ReturnType<typeof cohere.buildRequest>, Promise<unknown>>;
}

describe("Cohere adapter", () => {
  it("sends an OpenAI chat as a v2 chat: roles, tools and sampling renamed", () => {
    const req = build({
      model: "command-r",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather?" },
            { type: "image_url", image_url: { url: "https://x.test/a.png" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
      ],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 5,
      max_tokens: 50,
      stop: "END",
      tools: [{ type: "function", function: { name: "w", parameters: { type: "object" } } }],
      tool_choice: "required",
    });
    expect(req.url).toBe("https://api.cohere.ai/v2/chat");
    expect(req.headers.Authorization).toBe("Bearer co-key");
    expect(JSON.parse(String(req.body))).toEqual({
      model: "command-r",
      stream: false,
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather?" },
            { type: "image_url", image_url: { url: "https://x.test/a.png" } },
          ],
        },
        { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
      ],
      temperature: 0.3,
      p: 0.9,
      k: 5,
      max_tokens: 50,
      stop_sequences: ["END"],
      tools: [{ type: "function", function: { name: "w", parameters: { type: "object" } } }],
      tool_choice: "REQUIRED",
    });
  });

  it("converts a whole answer with the billed units as usage", () => {
    const req = build({ model: "command-r", messages: [{ role: "user", content: "What is an LLM?" }] });
    const out = JSON.parse(req.response!.json(JSON.parse(fixture("chat.json"))).body);
    expect(out).toMatchObject({
      object: "chat.completion",
      model: "command-r",
      choices: [
        { message: { role: "assistant", content: "LLMs are neural networks trained on large amounts of text." }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
    });
  });

  it("converts the stream: text deltas, then the finish with usage", () => {
    const req = build({ model: "command-r", messages: [{ role: "user", content: "hi" }], stream: true });
    const chunks = events(fixture("chat.sse.txt"))
      .map((e) => req.response!.streamEvent!(e))
      .filter((c) => c !== null) as Record<string, any>[];
    expect(chunks.map((c) => c.choices[0].delta.content ?? null)).toEqual([
      "",
      "LLMs are neural networks",
      " trained on large amounts of text.",
      null,
    ]);
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 12 } });
  });

  it("converts streamed tool calls into OpenAI's tool_call deltas", () => {
    const req = build({ model: "command-r", messages: [{ role: "user", content: "weather in Toronto" }], stream: true });
    const chunks = events(fixture("tool-call.sse.txt"))
      .map((e) => req.response!.streamEvent!(e))
      .filter((c) => c !== null) as Record<string, any>[];
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: "get_weather_nsz5zm3w56q3",
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    expect(calls.map((c: any) => c.function.arguments).join("")).toBe('{"location":"Toronto"}');
    expect(chunks.at(-1)).toMatchObject({
      choices: [{ finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 37, completion_tokens: 19 },
    });
  });

  it("sends rerank to /v1/rerank and answers in the relay's rerank shape", () => {
    const req = build({ model: "rerank-english-v3.0", query: "q", documents: ["a", "b"], top_n: 2, return_documents: false }, "rerank");
    expect(req.url).toBe("https://api.cohere.ai/v1/rerank");
    expect(JSON.parse(String(req.body))).toEqual({
      model: "rerank-english-v3.0",
      query: "q",
      documents: ["a", "b"],
      top_n: 2,
      return_documents: false,
    });
    const out = JSON.parse(req.response!.json(JSON.parse(fixture("rerank.json"))).body);
    expect(out).toMatchObject({
      model: "rerank-english-v3.0",
      results: [
        { index: 1, relevance_score: 0.999071 },
        { index: 0, relevance_score: 0.32713068 },
      ],
      meta: { billed_units: { search_units: 1 } },
    });
  });

  it("embeds through /v2/embed, as floats or base64 float32, billing the billed input tokens", () => {
    const req = build({ model: "embed-english-v3.0", input: ["hello", "goodbye"] }, "embeddings");
    expect(req.url).toBe("https://api.cohere.ai/v2/embed");
    expect(JSON.parse(String(req.body))).toEqual({
      model: "embed-english-v3.0",
      texts: ["hello", "goodbye"],
      input_type: "search_document",
      embedding_types: ["float"],
    });
    const out = JSON.parse(req.response!.json(JSON.parse(fixture("embed.json"))).body);
    expect(out).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: [0.016296387, -0.008354187, -0.04699707, -0.07104492] },
        { object: "embedding", index: 1, embedding: [-0.032226562, 0.025634766, 0.0058250427, -0.0390625] },
      ],
      model: "embed-english-v3.0",
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    const b64 = build({ model: "embed-english-v3.0", input: "hello", encoding_format: "base64", input_type: "search_query" }, "embeddings");
    expect(JSON.parse(String(b64.body))).toMatchObject({ texts: ["hello"], input_type: "search_query" });
    const encoded = JSON.parse(b64.response!.json(JSON.parse(fixture("embed.json"))).body).data[1].embedding as string;
    const back = Array.from(new Float32Array(Uint8Array.from(Buffer.from(encoded, "base64")).buffer));
    expect(back).toEqual([-0.032226562, 0.025634766, 0.0058250427, -0.0390625].map(Math.fround));
    expect(() => build({ model: "embed-english-v3.0", input: [1, 2] }, "embeddings")).toThrow(/array of strings/);
  });

  it("refuses modes Cohere does not serve", () => {
    expect(() => build({ model: "x", prompt: "x" }, "images" as "chat")).toThrow(/not supported/);
  });
});

describe("Cohere stream events the converter does not know", () => {
  it("are counted, and the stream still ends with its finish and usage", () => {
    const req = build({ model: "command-r", messages: [{ role: "user", content: "hi" }], stream: true }) as UpstreamRequest;
    const before = unknownEventCounts().get("cohere:debug") ?? 0;
    const r = replayStream(req, `event: debug\ndata: {"type":"debug","delta":{}}\n\n${fixture("chat.sse.txt")}`);
    expect(unknownEventCounts().get("cohere:debug")).toBe(before + 1);
    expect(r.text).toBe("LLMs are neural networks trained on large amounts of text.");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 12 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded events fit the event schema, and the known skipped ones are not counted", () => {
    const before = [...unknownEventCounts()].filter(([k]) => k.startsWith("cohere:")).length;
    const req = build({ model: "command-r", messages: [{ role: "user", content: "hi" }], stream: true });
    for (const e of [...events(fixture("chat.sse.txt")), ...events(fixture("tool-call.sse.txt"))]) {
      expect(CohereStreamEvent.safeParse(e).success).toBe(true);
      req.response!.streamEvent!(e);
    }
    expect([...unknownEventCounts()].filter(([k]) => k.startsWith("cohere:")).length).toBe(before);
  });
});
