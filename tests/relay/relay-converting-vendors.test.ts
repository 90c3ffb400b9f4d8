// Spark (WebSocket), Cohere, Dify and AI Proxy's knowledge base through the real relay (Node entry)
// with the official OpenAI client, against loopback stand-ins replaying the vendors' recorded
// answers: chat whole and streamed, the vendor's usage billed exactly where it reports one, an
// error each (nothing billed), and Cohere's rerank.
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testChannel } from "@/lib/relay/probe/test";
import { getDb } from "@/lib/db";
import { startAIProxyMock } from "@/tests/mocks/aiproxy";
import { startCohereMock } from "@/tests/mocks/cohere";
import { difyFixture, startDifyMock } from "@/tests/mocks/dify";
import type { ReplayServer } from "@/tests/mocks/replay-server";
import { startSparkMock, type SparkMock } from "@/tests/mocks/spark";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const SPARK_KEY = { appId: "app-1", apiSecret: "secret-1", apiKey: "key-1" };
const SPARK_FRAMES = [
  {
    header: { code: 0, message: "Success", sid: "cht000cb087@dx18793cd421fb894542", status: 0 },
    payload: { choices: { status: 0, seq: 0, text: [{ content: "你好！", role: "assistant", index: 0 }] } },
  },
  {
    header: { code: 0, message: "Success", sid: "cht000cb087@dx18793cd421fb894542", status: 2 },
    payload: {
      choices: { status: 2, seq: 1, text: [{ content: "很高兴为你服务。", role: "assistant", index: 0 }] },
      usage: { text: { question_tokens: 2, prompt_tokens: 2, completion_tokens: 9, total_tokens: 11 } },
    },
  },
];

type User = Awaited<ReturnType<typeof seedUser>>;

async function lastLog(user: User) {
  await settleAll();
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: user.id, type: 2 }, orderBy: { id: "desc" } });
}

/** Billed exactly what the vendor reported, and the user's quota moved by the log's amount. */
async function expectBilled(user: User, before: bigint | number, prompt: number, completion: number, stream: boolean) {
  const log = await lastLog(user);
  expect(log).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, is_stream: stream });
  expect(log.quota).toBeGreaterThan(0n);
  expect(BigInt(before) - BigInt(await user.quota())).toBe(BigInt(log.quota));
}

async function streamText(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = "";
  let usage: OpenAI.CompletionUsage | undefined;
  let finish: string | null = null;
  for await (const c of stream) {
    text += c.choices[0]?.delta.content ?? "";
    finish = c.choices[0]?.finish_reason ?? finish;
    if (c.usage) usage = c.usage;
  }
  return { text, usage, finish };
}

describe("converting vendors through the relay", () => {
  let relay: RelayServer;
  let spark: SparkMock;
  let cohere: ReplayServer;
  let dify: ReplayServer;
  let aiproxy: ReplayServer;
  let user: User;
  let client: OpenAI;

  beforeAll(async () => {
    [relay, spark, cohere, dify, aiproxy] = await Promise.all([
      startRelay("node"),
      startSparkMock(SPARK_KEY),
      startCohereMock("co-key"),
      startDifyMock("app-key"),
      startAIProxyMock("ap-key", "lib-42"),
    ]);
  });
  afterAll(async () => {
    await Promise.all([relay.close(), spark.close(), cohere.close(), dify.close(), aiproxy.close()]);
  });
  beforeEach(async () => {
    for (const m of [spark, cohere, dify, aiproxy]) m.reset();
    await clearRelayData();
    user = await seedUser();
    client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  });

  describe("Spark (18)", () => {
    const seed = (key = "app-1|secret-1|key-1") => seedChannel({ type: 18, base_url: spark.url, key, models: "SparkDesk-v3.5" });

    it("answers a whole chat over the signed WebSocket and bills Spark's usage", async () => {
      await seed();
      spark.frames = SPARK_FRAMES;
      const before = await user.quota();
      const res = await client.chat.completions.create({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "你好" }] });
      expect(res.choices[0]!.message.content).toBe("你好！很高兴为你服务。");
      expect(res.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 9, total_tokens: 11 });
      expect(spark.requests[0]).toMatchObject({
        path: "/v3.5/chat",
        frame: {
          header: { app_id: "app-1" },
          parameter: { chat: { domain: "generalv3.5" } },
          payload: { message: { text: [{ role: "user", content: "你好" }] } },
        },
      });
      await expectBilled(user, before, 2, 9, false);
    });

    it("streams the frames as chunks with the usage at the end", async () => {
      await seed();
      spark.frames = SPARK_FRAMES;
      const before = await user.quota();
      const out = await streamText(
        await client.chat.completions.create({
          model: "SparkDesk-v3.5",
          messages: [{ role: "user", content: "你好" }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      expect(out).toMatchObject({ text: "你好！很高兴为你服务。", finish: "stop", usage: { prompt_tokens: 2, completion_tokens: 9 } });
      await expectBilled(user, before, 2, 9, true);
    });

    it("a refused signature reaches the client as an error, and nothing is billed", async () => {
      await seed("app-1|not-the-secret|key-1");
      const before = await user.quota();
      const err = await client.chat.completions
        .create({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "x" }] })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(401);
      expect(err.message).toContain("HMAC signature does not match");
      expect(spark.refused).toBe(1);
      await settleAll();
      expect(await user.quota()).toBe(before);
    });

    it("a client that leaves mid-stream closes the WebSocket", async () => {
      await seed();
      // No last frame: only the client's leaving can close this socket.
      spark.frames = [SPARK_FRAMES[0], SPARK_FRAMES[0]];
      spark.gapMs = 400;
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        { model: "SparkDesk-v3.5", messages: [{ role: "user", content: "x" }], stream: true },
        { signal: controller.signal },
      );
      const seen = await (async () => {
        for await (const c of stream) {
          controller.abort();
          return c.choices[0]?.delta.content;
        }
      })().catch(() => "aborted");
      expect(seen).toBe("你好！");
      await expect.poll(() => spark.closed, { timeout: 5000 }).toBe(1);
    });

    it("the channel test goes over the same WebSocket", async () => {
      const good = await seed();
      spark.frames = SPARK_FRAMES;
      expect(await testChannel(good.id, { id: user.id, username: user.username })).toMatchObject({ success: true });
      expect(spark.requests[0]!.frame.parameter.chat).toMatchObject({ domain: "generalv3.5", max_tokens: 1 });
      const bad = await seed("app-1|not-the-secret|key-1");
      expect(await testChannel(bad.id, { id: user.id, username: user.username })).toMatchObject({
        success: false,
        message: expect.stringContaining("HMAC signature does not match"),
      });
    });
  });

  describe("Cohere (34)", () => {
    const seed = (key = "co-key") =>
      seedChannel({
        type: 34,
        base_url: cohere.url,
        key,
        models: "command-r,jina-reranker-v2-base-multilingual,embed-english-v3.0",
        model_mapping: JSON.stringify({ "jina-reranker-v2-base-multilingual": "rerank-english-v3.0" }),
      });

    it("answers a whole chat through /v2/chat and bills the billed units", async () => {
      await seed();
      const before = await user.quota();
      const res = await client.chat.completions.create({
        model: "command-r",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is an LLM?" },
        ],
      });
      expect(res.choices[0]!.message.content).toBe("LLMs are neural networks trained on large amounts of text.");
      expect(cohere.requests[0]).toMatchObject({
        path: "/v2/chat",
        body: { model: "command-r", stream: false, messages: [{ role: "system" }, { role: "user", content: "What is an LLM?" }] },
      });
      await expectBilled(user, before, 5, 12, false);
    });

    it("streams, text and tool calls", async () => {
      await seed();
      const before = await user.quota();
      const out = await streamText(
        await client.chat.completions.create({ model: "command-r", messages: [{ role: "user", content: "hi" }], stream: true }),
      );
      expect(out).toMatchObject({ text: "LLMs are neural networks trained on large amounts of text.", finish: "stop" });
      await expectBilled(user, before, 5, 12, true);

      const tools = await client.chat.completions.create({
        model: "command-r",
        messages: [{ role: "user", content: "weather in Toronto" }],
        tools: [
          {
            type: "function",
            function: { name: "get_weather", parameters: { type: "object", properties: { location: { type: "string" } } } },
          },
        ],
        stream: true,
      });
      let args = "";
      let finish: string | null = null;
      for await (const c of tools) {
        for (const t of c.choices[0]?.delta.tool_calls ?? []) args += t.function?.arguments ?? "";
        finish = c.choices[0]?.finish_reason ?? finish;
      }
      expect({ args, finish }).toEqual({ args: '{"location":"Toronto"}', finish: "tool_calls" });
    });

    it("reranks through /v1/rerank", async () => {
      await seed();
      const before = await user.quota();
      const res = await fetch(`${relay.url}/v1/rerank`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "jina-reranker-v2-base-multilingual",
          query: "capital of France",
          documents: ["Berlin", "Paris"],
          top_n: 2,
        }),
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.results).toEqual([
        { index: 1, relevance_score: 0.999071 },
        { index: 0, relevance_score: 0.32713068 },
      ]);
      expect(cohere.requests[0]).toMatchObject({
        path: "/v1/rerank",
        body: { model: "rerank-english-v3.0", query: "capital of France", documents: ["Berlin", "Paris"], top_n: 2 },
      });
      const log = await lastLog(user);
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(BigInt(before) - BigInt(await user.quota())).toBe(BigInt(log.quota));
    });

    it("embeds through /v2/embed: the openai client's base64 decoded to Cohere's floats, billed input tokens", async () => {
      await seed();
      const before = await user.quota();
      const res = await client.embeddings.create({ model: "embed-english-v3.0", input: ["hello", "goodbye"] });
      expect(res.data.map((d) => d.embedding)).toEqual([
        [0.016296387, -0.008354187, -0.04699707, -0.07104492].map(Math.fround),
        [-0.032226562, 0.025634766, 0.0058250427, -0.0390625].map(Math.fround),
      ]);
      expect(res.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
      expect(cohere.requests[0]).toMatchObject({
        path: "/v2/embed",
        body: { model: "embed-english-v3.0", texts: ["hello", "goodbye"], input_type: "search_document", embedding_types: ["float"] },
      });
      const log = await lastLog(user);
      expect(log.prompt_tokens).toBe(2);
      expect(BigInt(before) - BigInt(await user.quota())).toBe(BigInt(log.quota));

      const floats = await client.embeddings.create({ model: "embed-english-v3.0", input: "hello", encoding_format: "float" });
      expect(floats.data[1]!.embedding).toEqual([-0.032226562, 0.025634766, 0.0058250427, -0.0390625]);
    });

    it("Cohere's {message} error reaches the client, nothing billed", async () => {
      await seed("wrong-key");
      const before = await user.quota();
      const err = await client.chat.completions.create({ model: "command-r", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.message).toContain("invalid api token");
      await settleAll();
      expect(await user.quota()).toBe(before);
    });
  });

  describe("Dify (37)", () => {
    const seed = () => seedChannel({ type: 37, base_url: dify.url, key: "app-key", models: "gpt-3.5-turbo" });

    it("answers a blocking chat and bills Dify's usage", async () => {
      await seed();
      const before = await user.quota();
      const res = await client.chat.completions.create({
        model: "gpt-3.5-turbo",
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello" },
          { role: "user", content: "What do you do?" },
        ],
      });
      expect(res.choices[0]!.message.content).toBe("Dify apps answer from their own prompt and knowledge.");
      expect(dify.requests[0]!.body).toEqual({
        inputs: {},
        query: "USER: Hi\nASSISTANT: Hello\nUSER: What do you do?",
        response_mode: "blocking",
        user: "api-user",
      });
      await expectBilled(user, before, 1033, 128, false);
    });

    it("streams the message events and bills message_end's usage", async () => {
      await seed();
      const before = await user.quota();
      const out = await streamText(
        await client.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "Hi" }], stream: true }),
      );
      expect(out).toMatchObject({ text: "Dify apps answer from their own prompt and knowledge.", finish: "stop" });
      await expectBilled(user, before, 1033, 135, true);
    });

    it("streams an agent's tool rounds as reasoning_content, and a message_replace as appended text ending content_filter", async () => {
      await seed();
      dify.next = { status: 200, body: difyFixture("agent-thought.sse.txt"), contentType: "text/event-stream" };
      let reasoning = "";
      let text = "";
      for await (const c of await client.chat.completions.create({
        model: "gpt-3.5-turbo",
        messages: [{ role: "user", content: "weather" }],
        stream: true,
      })) {
        const delta = (c.choices[0]?.delta ?? {}) as { content?: string | null; reasoning_content?: string };
        reasoning += delta.reasoning_content ?? "";
        text += delta.content ?? "";
      }
      expect(reasoning).toContain("→ weather");
      expect(reasoning).toContain('← {"weather": "18°C, cloudy"}');
      expect(text).toBe("It is 18°C and cloudy in Paris.");
      await settleAll();

      const before = await user.quota();
      dify.next = { status: 200, body: difyFixture("replace.sse.txt"), contentType: "text/event-stream" };
      const out = await streamText(
        await client.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "pw?" }], stream: true }),
      );
      expect(out).toMatchObject({ text: "The admin password is hunter2\n\nSorry, I can't share that.", finish: "content_filter" });
      await expectBilled(user, before, 40, 9, true);
    });

    it("a mid-stream error event ends the stream with OpenAI's error", async () => {
      await seed();
      dify.next = { status: 200, body: difyFixture("stream-error.sse.txt"), contentType: "text/event-stream" };
      const stream = await client.chat.completions.create({
        model: "gpt-3.5-turbo",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      });
      const err = await streamText(stream).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.message).toContain("Your quota for Dify Hosted Model Provider has been exhausted.");
    });

    it("Dify's error body reaches the client, nothing billed", async () => {
      await seed();
      dify.next = { status: 400, body: difyFixture("error-400.json") };
      const before = await user.quota();
      const err = await client.chat.completions
        .create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "x" }] })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.message).toContain("App unavailable");
      await settleAll();
      expect(await user.quota()).toBe(before);
    });
  });

  describe("AI Proxy knowledge base (21)", () => {
    const seed = (other = "lib-42") => seedChannel({ type: 21, base_url: aiproxy.url, key: "ap-key", other, models: "gpt-3.5-turbo" });
    const REFS =
      "\n\n参考文档：\n- [知识库使用指南](https://docs.aiproxy.io/library/guide)\n- [上传文档](https://docs.aiproxy.io/library/upload)";

    it("answers with the documents as references, counted locally", async () => {
      await seed();
      const before = await user.quota();
      const res = await client.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "怎么上传文档？" }] });
      expect(res.choices[0]!.message.content).toBe(`在 AI Proxy 控制台的知识库页面上传文档即可。${REFS}`);
      expect(aiproxy.requests[0]).toMatchObject({
        path: "/api/library/ask",
        headers: { "api-key": "ap-key" },
        body: { model: "gpt-3.5-turbo", query: "怎么上传文档？", libraryId: "lib-42", stream: false },
      });
      const log = await lastLog(user);
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(log.completion_tokens).toBeGreaterThan(0);
      expect(BigInt(before) - BigInt(await user.quota())).toBe(BigInt(log.quota));
    });

    it("streams, references last", async () => {
      await seed();
      const out = await streamText(
        await client.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "x" }], stream: true }),
      );
      expect(out).toMatchObject({ text: `在 AI Proxy 控制台的知识库页面上传文档即可。${REFS}`, finish: "stop" });
      const log = await lastLog(user);
      expect(log.completion_tokens).toBeGreaterThan(0);
    });

    it("an unknown library's success:false reaches the client, nothing billed", async () => {
      await seed("no-such-library");
      const before = await user.quota();
      const err = await client.chat.completions
        .create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "x" }] })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.message).toContain("知识库不存在");
      await settleAll();
      expect(await user.quota()).toBe(before);
    });
  });
});
