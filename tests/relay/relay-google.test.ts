// Gemini (24), Vertex AI (41) and PaLM2 (11) through the real relay (Node entry) with the official
// `openai` client, against a mock Google (tests/mocks/gemini.ts) answering with the vendors'
// recorded shapes. Usage is Gemini's, billed exactly; Vertex authenticates with a JWT the mock
// verifies with the service account's public key.
import { GoogleGenAI, Type } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testChannel } from "@/lib/relay/probe/test";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startGoogleMock, type GoogleMock } from "@/tests/mocks/gemini";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const GEMINI = "gemini-2.0-flash";
const EMBED = "text-embedding-004";
const VERTEX_GEMINI = "gemini-1.5-flash-001";
const LLAMA = "meta/llama3-405b-instruct-maas";
const CLAUDE = "claude-3-5-sonnet-20240620";
const KEY = "AIza-test-key";

const lastLog = async (userId: number) =>
  (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
};

describe("Google channel types through the relay", () => {
  let mock: GoogleMock;
  let relay: RelayServer;
  let user: Awaited<ReturnType<typeof seedUser>>;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startGoogleMock({ apiKey: KEY });
    relay = await startRelay("node");
    await updateOption("RetryTimes", "0");
    await updateOption(
      "ModelRatio",
      JSON.stringify({ [GEMINI]: 2, [EMBED]: 1, [VERTEX_GEMINI]: 2, [LLAMA]: 1, [CLAUDE]: 1, "gemini-pro": 1, "PaLM-2": 1 }),
    );
    await updateOption("CompletionRatio", JSON.stringify({ [GEMINI]: 3, [VERTEX_GEMINI]: 3, [LLAMA]: 1, "PaLM-2": 1 }));
    await updateOption("CacheRatio", JSON.stringify({ [GEMINI]: 0.5 }));
  });
  afterAll(async () => {
    await relay.close();
    await mock.close();
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
    user = await seedUser();
    client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  });

  describe("Gemini (24)", () => {
    beforeEach(async () => {
      await seedChannel({ type: 24, base_url: mock.url, models: `${GEMINI},${EMBED}`, key: KEY });
    });

    it("answers a chat whole, with thoughts apart, and bills Gemini's usage exactly", async () => {
      const before = await user.quota();
      const res = await client.chat.completions.create({
        model: GEMINI,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        max_tokens: 50,
      });
      expect(res.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      expect((res.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toMatch(/greeting/);
      expect(res.choices[0]!.finish_reason).toBe("stop");
      expect(res.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 30, total_tokens: 41 });

      const seen = mock.requests.at(-1)!;
      expect(seen.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect(seen.headers["x-goog-api-key"]).toBe(KEY);
      expect(seen.query.has("key")).toBe(false);
      expect(seen.json).toMatchObject({
        systemInstruction: { parts: [{ text: "Be brief." }] },
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        generationConfig: { maxOutputTokens: 50 },
      });

      await settleAll();
      const log = await lastLog(user.id);
      // 2 × ((11 − 4) + 4 × 0.5 + 30 × 3) = 198
      expect(log).toMatchObject({ prompt_tokens: 11, completion_tokens: 30, quota: 198n });
      expect(before - (await user.quota())).toBe(198n);
    });

    it("streams a chat and bills the usage of the last event", async () => {
      let text = "";
      let usage: OpenAI.CompletionUsage | undefined;
      const finishes: (string | null)[] = [];
      for await (const chunk of await client.chat.completions.create({
        model: GEMINI,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      })) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe("Hello! How can I help you today?");
      expect(finishes.at(-1)).toBe("stop");
      expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 });
      expect(mock.requests.at(-1)!.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent`);
      expect(mock.requests.at(-1)!.query.get("alt")).toBe("sse");
      await settleAll();
      const log = await lastLog(user.id);
      // 2 × (11 + 9 × 3) = 76
      expect(log).toMatchObject({ is_stream: true, prompt_tokens: 11, completion_tokens: 9, quota: 76n });
    });

    it("answers tool calls whole and streamed", async () => {
      const whole = await client.chat.completions.create({
        model: GEMINI,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools: [WEATHER_TOOL],
      });
      expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
      const calls = whole.choices[0]!.message.tool_calls!.map((c) => c as OpenAI.ChatCompletionMessageFunctionToolCall);
      expect(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ["get_weather", { city: "Paris", unit: "celsius" }],
        ["get_time", { tz: "Europe/Paris" }],
      ]);
      const sent = mock.requests.at(-1)!.json as { tools: { functionDeclarations: { parameters: Record<string, unknown> }[] }[] };
      expect(sent.tools[0]!.functionDeclarations[0]!.parameters).not.toHaveProperty("additionalProperties");

      const streamed = new Map<number, { id: string; name: string; args: string }>();
      let finish: string | null = null;
      for await (const chunk of await client.chat.completions.create({
        model: GEMINI,
        messages: [
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: null, tool_calls: [{ id: calls[0]!.id, type: "function", function: calls[0]!.function }] },
          { role: "tool", tool_call_id: calls[0]!.id, content: "18°C" },
          { role: "user", content: "And the time?" },
        ],
        tools: [WEATHER_TOOL],
        stream: true,
      })) {
        for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) {
          const cur = streamed.get(t.index) ?? { id: "", name: "", args: "" };
          streamed.set(t.index, {
            id: t.id ?? cur.id,
            name: cur.name + (t.function?.name ?? ""),
            args: cur.args + (t.function?.arguments ?? ""),
          });
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect([...streamed.values()].map((c) => [c.name, JSON.parse(c.args)])).toEqual([
        ["get_weather", { city: "Paris", unit: "celsius" }],
        ["get_time", { tz: "Europe/Paris" }],
      ]);
      expect(finish).toBe("tool_calls");
      const history = (mock.requests.at(-1)!.json as { contents: unknown[] }).contents;
      expect(history[2]).toEqual({
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { name: "get_weather", content: "18°C" } } }],
      });
      await settleAll();
      // 2 × (57 + 24 × 3) = 258, for each of the two calls
      expect((await lastLog(user.id)).quota).toBe(258n);
    });

    it("serves embeddings through batchEmbedContents, billed by the local count", async () => {
      const before = await user.quota();
      const res = await client.embeddings.create({ model: EMBED, input: ["hello world", "goodbye"] });
      expect(res.data.map((d) => d.index)).toEqual([0, 1]);
      // The client asked for base64 (its default) and decoded it back to floats.
      expect(res.data[0]!.embedding.map((v) => Number(v.toFixed(6)))).toEqual([0.013169, -0.008712, -0.046783, 0.0007]);
      expect(mock.requests.at(-1)!.path).toBe(`/v1beta/models/${EMBED}:batchEmbedContents`);
      expect(res.usage.prompt_tokens).toBeGreaterThan(0);
      await settleAll();
      const log = await lastLog(user.id);
      expect(log.prompt_tokens).toBe(res.usage.prompt_tokens);
      expect(log.quota).toBe(BigInt(res.usage.prompt_tokens));
      expect(before - (await user.quota())).toBe(log.quota);
    });

    it("passes an upstream error on in OpenAI's shape and charges nothing", async () => {
      const before = await user.quota();
      mock.failNext({ status: 400, fixture: "error-invalid-argument.json" });
      const err = await client.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(400);
      expect(err.error).toMatchObject({ message: expect.stringContaining("contents is not specified"), code: 400 });
      await settleAll();
      expect(await user.quota()).toBe(before);
    });

    it("sends prompt images as inline data, and refuses an image it may not fetch", async () => {
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
      await client.chat.completions.create({
        model: GEMINI,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
            ],
          },
        ],
      });
      expect((mock.requests.at(-1)!.json as { contents: unknown[] }).contents).toEqual([
        { role: "user", parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: png } }] },
      ]);
      await settleAll();
      const before = await user.quota();
      const sent = mock.requests.length;
      // A user's image URL is fetched through the SSRF guard: a loopback address is refused.
      const err = await client.chat.completions
        .create({
          model: GEMINI,
          messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `${mock.url}/cat.png` } }] }],
        })
        .catch((e) => e);
      expect(err.status).toBe(400);
      expect(err.error.code).toBe("invalid_image_url");
      expect(mock.requests).toHaveLength(sent);
      await settleAll();
      expect(await user.quota()).toBe(before);
    });

    it("refuses a bad request before anything is sent", async () => {
      const err = await client.chat.completions
        .create({ model: GEMINI, messages: [{ role: "tool", tool_call_id: "call_x", content: "orphan" }] })
        .catch((e) => e);
      expect(err.status).toBe(400);
      expect(err.error.message).toContain("call_x");
      expect(mock.requests).toHaveLength(0);
    });

    it("serves Gemini's own callers (@google/genai), their requests passed through, tool calls included", async () => {
      const ai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
      const res = await ai.models.generateContent({ model: GEMINI, contents: "hi", config: { systemInstruction: "Be brief." } });
      expect(res.text).toBe("Hello! How can I help you today?");
      expect(res.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 9, thoughtsTokenCount: 21 });
      expect(mock.requests.at(-1)!.json).toMatchObject({ systemInstruction: { parts: [{ text: "Be brief." }] } });
      let text = "";
      for await (const chunk of await ai.models.generateContentStream({ model: GEMINI, contents: "hi" })) text += chunk.text ?? "";
      expect(text).toBe("Hello! How can I help you today?");
      const called = await ai.models.generateContent({
        model: GEMINI,
        contents: "Weather in Paris?",
        config: {
          tools: [
            {
              functionDeclarations: [
                { name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } },
              ],
            },
          ],
        },
      });
      expect(called.functionCalls?.map((c) => [c.name, c.args])).toEqual([
        ["get_weather", { city: "Paris", unit: "celsius" }],
        ["get_time", { tz: "Europe/Paris" }],
      ]);
    });

    it("passes the channel test, and fails it with a wrong key", async () => {
      const db = await getDb();
      const ok = await db.channel.findFirstOrThrow({ where: { type: 24 } });
      expect(await testChannel(ok.id, { id: user.id, username: user.username })).toMatchObject({ success: true });
      expect(mock.requests.at(-1)!.json).toMatchObject({ generationConfig: { maxOutputTokens: 1 } });
      const bad = await seedChannel({ type: 24, base_url: mock.url, models: GEMINI, key: "AIza-wrong" });
      const failed = await testChannel(bad.id, { id: user.id, username: user.username });
      expect(failed).toMatchObject({ success: false, message: expect.stringContaining("API key not valid") });
    });
  });

  describe("Vertex AI (41)", () => {
    it("exchanges a signed JWT for a token once, then serves Gemini whole and streamed in the channel's region", async () => {
      await seedChannel({
        type: 41,
        base_url: mock.url,
        models: `${VERTEX_GEMINI},${LLAMA}`,
        key: mock.serviceAccount(),
        other: JSON.stringify({ default: "us-central1", [VERTEX_GEMINI]: "europe-west4" }),
      });
      const before = await user.quota();
      const whole = await client.chat.completions.create({ model: VERTEX_GEMINI, messages: [{ role: "user", content: "hi" }] });
      expect(whole.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      expect(mock.requests.at(-1)!.path).toBe(
        `/v1/projects/qiao-test/locations/europe-west4/publishers/google/models/${VERTEX_GEMINI}:generateContent`,
      );
      expect(mock.requests.at(-1)!.headers.authorization).toBe("Bearer ya29.mock-1");

      let text = "";
      for await (const chunk of await client.chat.completions.create({
        model: VERTEX_GEMINI,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })) {
        text += chunk.choices[0]?.delta?.content ?? "";
      }
      expect(text).toBe("Hello! How can I help you today?");
      expect(mock.requests.at(-1)!.path).toMatch(/:streamGenerateContent$/);

      const llama = await client.chat.completions.create({ model: LLAMA, messages: [{ role: "user", content: "hi" }] });
      expect(llama.choices[0]!.message.content).toBe("Hello from Llama.");
      expect(mock.requests.at(-1)!.path).toBe("/v1beta1/projects/qiao-test/locations/us-central1/endpoints/openapi/chat/completions");
      expect(mock.requests.at(-1)!.json).toMatchObject({ model: LLAMA });

      expect(mock.tokenCalls).toBe(1);
      await settleAll();
      // 2 × ((11 − 4) + 4 + 30 × 3) (no cache ratio for this model: cached at full price) + 2 × (11 + 9 × 3) + 1 × (5 + 4)
      expect(before - (await user.quota())).toBe(202n + 76n + 9n);
    });

    it("coalesces concurrent token fetches and passes the channel test", async () => {
      const ch = await seedChannel({ type: 41, base_url: mock.url, models: VERTEX_GEMINI, key: mock.serviceAccount() });
      const answers = await Promise.all(
        [1, 2, 3].map(() => client.chat.completions.create({ model: VERTEX_GEMINI, messages: [{ role: "user", content: "hi" }] })),
      );
      expect(answers.every((a) => a.choices[0]!.message.content === "Hello! How can I help you today?")).toBe(true);
      expect(mock.tokenCalls).toBe(1);
      expect(mock.requests.at(-1)!.path).toContain("/locations/us-central1/");
      expect(await testChannel(ch.id, { id: user.id, username: user.username })).toMatchObject({ success: true });
      expect(mock.tokenCalls).toBe(1);
    });

    it("serves Claude through rawPredict, whole and streamed, with Anthropic's usage", async () => {
      await seedChannel({ type: 41, base_url: mock.url, models: CLAUDE, key: mock.serviceAccount() });
      const whole = await client.chat.completions.create({
        model: CLAUDE,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
      });
      expect(whole.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      expect(whole.usage).toMatchObject({ prompt_tokens: 1212, completion_tokens: 9 });
      const seen = mock.requests.at(-1)!;
      expect(seen.path).toBe(
        "/v1/projects/qiao-test/locations/us-central1/publishers/anthropic/models/claude-3-5-sonnet@20240620:rawPredict",
      );
      expect(seen.json).toMatchObject({ anthropic_version: "vertex-2023-10-16", system: "Be brief.", messages: [{ role: "user" }] });

      let text = "";
      for await (const chunk of await client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })) {
        text += chunk.choices[0]?.delta?.content ?? "";
      }
      expect(text).toBe("Hello! How can I help you today?");
      expect(mock.requests.at(-1)!.path).toMatch(/claude-3-5-sonnet@20240620:streamRawPredict$/);
      expect(mock.requests.at(-1)!.json).toMatchObject({ stream: true });
      await settleAll();
      const log = await lastLog(user.id);
      expect(log).toMatchObject({ is_stream: true, prompt_tokens: 1212, completion_tokens: 9 });
      expect(mock.tokenCalls).toBe(1);
    });

    it("embeds text-embedding-004 through :predict, billing the summed token counts", async () => {
      await seedChannel({ type: 41, base_url: mock.url, models: EMBED, key: mock.serviceAccount(), other: "asia-east1" });
      const before = await user.quota();
      const res = await client.embeddings.create({ model: EMBED, input: ["hello", "goodbye"] });
      expect(res.data.map((d) => d.embedding)).toEqual([
        [0.0123291, -0.0468749, 0.0289306, 0.0634765].map(Math.fround),
        [-0.0200195, 0.0517578, -0.0032958, 0.012207].map(Math.fround),
      ]);
      expect(res.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
      expect(mock.requests.at(-1)!.path).toBe(`/v1/projects/qiao-test/locations/asia-east1/publishers/google/models/${EMBED}:predict`);
      expect(mock.requests.at(-1)!.json).toEqual({ instances: [{ content: "hello" }, { content: "goodbye" }] });
      await settleAll();
      const log = await lastLog(user.id);
      expect(log.prompt_tokens).toBe(6);
      expect(before - (await user.quota())).toBe(6n);
    });

    it("fails cleanly when the token endpoint refuses the key", async () => {
      const ch = await seedChannel({ type: 41, base_url: mock.url, models: VERTEX_GEMINI, key: mock.serviceAccount({ untrusted: true }) });
      const before = await user.quota();
      const err = await client.chat.completions
        .create({ model: VERTEX_GEMINI, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      expect(err.status).toBe(500);
      expect(err.error.message).toContain("Invalid JWT Signature.");
      expect(mock.requests).toHaveLength(0);
      const tested = await testChannel(ch.id, { id: user.id, username: user.username });
      expect(tested).toMatchObject({ success: false, message: expect.stringContaining("access token refused") });

      // The key's token_uri is an admin's address: internal ones only while root allows them.
      await updateOption("ChannelPrivateAddressAllowed", "false");
      const calls = mock.tokenCalls;
      try {
        await seedChannel({ type: 41, base_url: mock.url, models: "gemini-pro", key: mock.serviceAccount() });
        const blocked = await client.chat.completions
          .create({ model: "gemini-pro", messages: [{ role: "user", content: "hi" }] })
          .catch((e) => e);
        expect(blocked.status).toBe(500);
        expect(blocked.error.message).toContain("the token endpoint could not be reached");
        expect(mock.tokenCalls).toBe(calls);
      } finally {
        await updateOption("ChannelPrivateAddressAllowed", "true");
      }

      await settleAll();
      expect(await user.quota()).toBe(before);
    });
  });

  describe("PaLM2 (11)", () => {
    beforeEach(async () => {
      await seedChannel({ type: 11, base_url: mock.url, models: "PaLM-2", key: KEY });
    });

    it("answers whole and as a one-chunk stream, with locally counted usage", async () => {
      const whole = await client.chat.completions.create({
        model: "PaLM-2",
        messages: [
          { role: "system", content: "You are helpful." },
          { role: "user", content: "hi" },
        ],
        temperature: 0.2,
      });
      expect(whole.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      expect(whole.usage!.prompt_tokens).toBeGreaterThan(0);
      expect(whole.usage!.completion_tokens).toBeGreaterThan(0);
      const seen = mock.requests.at(-1)!;
      expect(seen.path).toBe("/v1beta2/models/chat-bison-001:generateMessage");
      expect(seen.headers["x-goog-api-key"]).toBe(KEY);
      expect(seen.json).toEqual({ prompt: { context: "You are helpful.", messages: [{ author: "0", content: "hi" }] }, temperature: 0.2 });
      await settleAll();
      const log = await lastLog(user.id);
      expect(log).toMatchObject({ prompt_tokens: whole.usage!.prompt_tokens, completion_tokens: whole.usage!.completion_tokens });

      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of await client.chat.completions.create({
        model: "PaLM-2",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })) {
        chunks.push(chunk);
      }
      expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("Hello! How can I help you today?");
      expect(chunks.find((c) => c.choices[0])!.choices[0]!.finish_reason).toBe("stop");
    });

    it("reports the content filter", async () => {
      const res = await client.chat.completions.create({ model: "PaLM-2", messages: [{ role: "user", content: "a forbidden topic" }] });
      expect(res.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: "" } });
    });
  });
});
