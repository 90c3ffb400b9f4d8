// The relay as API consumers see it: the official `openai` client against both relay entries,
// with a mock OpenAI upstream on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI, { toFile } from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";

for (const entry of ENTRIES) {
  describe(`relay through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let client: OpenAI;

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: `${MODEL},text-embedding-3-small,dall-e-3,tts-1,whisper-1,text-moderation-latest` });
      await seedChannel({ base_url: mock.url, type: 38, models: "jina-reranker-v2-base-multilingual" });
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("answers a chat completion and bills the upstream's usage", async () => {
      const before = await user.quota();
      const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
      expect(res.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
      await settleAll();
      const db = await getDb();
      const log = await db.log.findFirstOrThrow({ where: { user_id: user.id, type: 2 } });
      expect(log).toMatchObject({
        model_name: MODEL,
        prompt_tokens: res.usage!.prompt_tokens,
        completion_tokens: res.usage!.completion_tokens,
        is_stream: false,
        username: user.username,
      });
      expect(before - (await user.quota())).toBe(log.quota);
      expect(log.quota).toBeGreaterThan(0n);
      const other = JSON.parse(log.other);
      expect(other).toMatchObject({
        model_ratio: expect.any(Number),
        group_ratio: 1,
        completion_ratio: expect.any(Number),
        model_price: -1,
      });
      expect(other.admin_info.use_channel).toHaveLength(1);
      expect(typeof other.frt).toBe("number");
    });

    it("streams without showing the usage chunk to a client that did not ask, and still bills it", async () => {
      const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }], stream: true });
      let text = "";
      let sawUsage = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.usage) sawUsage = true;
      }
      expect(text).toBe("Hello! How can I help you today?");
      expect(sawUsage).toBe(false);
      // Upstream was asked for usage even though the client was not.
      expect((mock.requests.at(-1)!.json as any).stream_options).toEqual({ include_usage: true });
      // One Accept header, not the provider's and a second one (Node joins repeats with ", ").
      expect(mock.requests.at(-1)!.headers.accept).toBe("text/event-stream");
      await settleAll();
      const log = await (await getDb()).log.findFirstOrThrow({ where: { user_id: user.id, type: 2 } });
      expect(log.is_stream).toBe(true);
      expect(log.completion_tokens).toBeGreaterThan(0);
      const other = JSON.parse(log.other);
      expect(other).toMatchObject({ upstream_usage: true, stream_end: "done", request_path: "/v1/chat/completions", model_price: -1 });
      expect(other.client_gone).toBeUndefined();
      expect(other.frt).toBeGreaterThanOrEqual(0);
    });

    it("streams the usage chunk to a client that asked for it", async () => {
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
      expect(usage?.completion_tokens).toBeGreaterThan(0);
    });

    it("counts tokens locally when the upstream sends no usage", async () => {
      mock.setBehaviour({ omitUsage: true, content: "one two three four" });
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
      expect(usage?.completion_tokens).toBe(4);
      await settleAll();
      const log = await (await getDb()).log.findFirstOrThrow({ where: { user_id: user.id, type: 2 } });
      expect(log.completion_tokens).toBe(4);
      expect(log.prompt_tokens).toBeGreaterThan(0);
    });

    it("streams tool calls", async () => {
      mock.setBehaviour({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris","unit":"c"}' }] });
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "weather?" }],
        tools: [
          { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
        ],
        stream: true,
      });
      let name = "";
      let args = "";
      for await (const chunk of stream) {
        const call = chunk.choices[0]?.delta?.tool_calls?.[0];
        if (call?.function?.name) name += call.function.name;
        if (call?.function?.arguments) args += call.function.arguments;
      }
      expect(name).toBe("get_weather");
      expect(JSON.parse(args)).toEqual({ city: "Paris", unit: "c" });
    });

    it("forwards unknown fields, JSON schema and explicit zeros untouched", async () => {
      await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        temperature: 0,
        top_p: 0,
        response_format: {
          type: "json_schema",
          json_schema: { name: "x", strict: true, schema: { type: "object", properties: { a: { type: "integer" } } } },
        },
        // @ts-expect-error: fields OpenAI's types do not know are passed through
        top_k: 0,
        thinking: { type: "enabled", budget_tokens: 0 },
      });
      const sent = mock.requests.at(-1)!.json as Record<string, unknown>;
      expect(sent.temperature).toBe(0);
      expect(sent.top_p).toBe(0);
      expect(sent.top_k).toBe(0);
      expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 0 });
      expect(sent.response_format).toEqual({
        type: "json_schema",
        json_schema: { name: "x", strict: true, schema: { type: "object", properties: { a: { type: "integer" } } } },
      });
      expect(mock.requests.at(-1)!.headers.authorization).toBe("Bearer sk-upstream-key");
    });

    it("relays embeddings, moderations, images, speech, transcription and rerank", async () => {
      const emb = await client.embeddings.create({ model: "text-embedding-3-small", input: "hello world" });
      expect(emb.data[0]!.embedding.length).toBeGreaterThan(0);
      const mod = await client.moderations.create({ model: "text-moderation-latest", input: "hello" });
      expect(mod.results).toHaveLength(1);
      const img = await client.images.generate({ model: "dall-e-3", prompt: "a cat", size: "1024x1024" });
      expect(img.data?.[0]).toBeTruthy();
      const speech = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "Hello there" });
      const audio = new Uint8Array(await speech.arrayBuffer());
      expect(audio.length).toBeGreaterThan(0);
      const transcript = await client.audio.transcriptions.create({
        model: "whisper-1",
        file: await toFile(Buffer.from("RIFFfake-wav"), "a.wav", { type: "audio/wav" }),
      });
      expect(transcript.text).toBe("Hello there, general Kenobi.");
      const sentMultipart = mock.requests.find((r) => r.path.endsWith("/audio/transcriptions"))!;
      expect(String(sentMultipart.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
      const rerank = await fetch(`${relay.url}/v1/rerank`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "jina-reranker-v2-base-multilingual", query: "q", documents: ["a", "b"] }),
      });
      expect(rerank.status, await rerank.clone().text()).toBe(200);
      expect((await rerank.json()).results).toHaveLength(2);
      await settleAll();
      const logs = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });
      expect(logs.map((l) => l.model_name)).toEqual([
        "text-embedding-3-small",
        "text-moderation-latest",
        "dall-e-3",
        "tts-1",
        "whisper-1",
        "jina-reranker-v2-base-multilingual",
      ]);
      expect(logs.every((l) => l.quota > 0n)).toBe(true);
    });

    it("lists only the models the key may use, in OpenAI's shape", async () => {
      const all = await client.models.list();
      expect(all.data.map((m) => m.id)).toContain(MODEL);
      expect(all.data[0]).toMatchObject({ object: "model" });
      const limited = await seedUser({ token: { model_limits_enabled: true, model_limits: MODEL } });
      const limitedClient = new OpenAI({ apiKey: limited.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      expect((await limitedClient.models.list()).data.map((m) => m.id)).toEqual([MODEL]);
      expect((await limitedClient.models.retrieve(MODEL)).id).toBe(MODEL);
      await expect(limitedClient.models.retrieve("dall-e-3")).rejects.toMatchObject({ status: 404 });
    });

    it("answers OpenAI-shaped 501 for routes it does not serve and 404 for unknown ones", async () => {
      const files = await fetch(`${relay.url}/v1/files`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(files.status).toBe(501);
      expect((await files.json()).error.code).toBe("api_not_implemented");
      const unknown = await fetch(`${relay.url}/v1/nothing`, { method: "POST", headers: { authorization: `Bearer ${user.key}` } });
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).error.type).toBe("invalid_request_error");
    });

    it("sends CORS headers and answers preflight", async () => {
      const pre = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    });

    it("serves the billing dashboard endpoints", async () => {
      const sub = await fetch(`${relay.url}/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(sub.status).toBe(200);
      expect((await sub.json()).object).toBe("billing_subscription");
      const usage = await fetch(`${relay.url}/v1/dashboard/billing/usage`, { headers: { authorization: `Bearer ${user.key}` } });
      expect((await usage.json()).object).toBe("list");
    });
  });
}
