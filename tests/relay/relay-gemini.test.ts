// Gemini callers (the official @google/genai client) through both relay entries, backed by an
// OpenAI-protocol channel: whole and streamed answers, function calling, countTokens, the model
// list, refusals in Google's shape that cost nothing, and billing equal to the chat path's.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type } from "@google/genai";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const TEXT = "Hello! How can I help you today?";
const WEATHER_TOOL = {
  functionDeclarations: [
    {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
    },
  ],
};

type Obj = Record<string, unknown>;

async function consumeLogs(userId: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "asc" } });
}

for (const entry of ENTRIES) {
  describe(`Gemini callers through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let ai: GoogleGenAI;
    const genai = (apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: relay.url } });
    const lastUpstream = () => mock.requests.at(-1)!.json as Obj;

    beforeAll(async () => {
      mock = await startOpenAIMock({ apiKey: "sk-up" });
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: `${MODEL},gpt-4o`, key: "sk-up" });
      user = await seedUser();
      ai = genai(user.key);
    });

    it("generateContent: the canonical request goes upstream, the answer and usage come back in Gemini's shape", async () => {
      const res = await ai.models.generateContent({
        model: MODEL,
        contents: "hi",
        config: { systemInstruction: "Be brief.", temperature: 0.3, maxOutputTokens: 50, stopSequences: ["END"] },
      });
      expect(res.text).toBe(TEXT);
      expect(res.candidates?.[0]?.finishReason).toBe("STOP");
      expect(res.modelVersion).toBe(MODEL);
      expect(res.responseId).toMatch(/^chatcmpl-/);
      const usage = res.usageMetadata!;
      expect(usage.promptTokenCount).toBeGreaterThan(0);
      expect(usage.candidatesTokenCount).toBeGreaterThan(0);
      expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount!);
      const upstream = mock.requests.at(-1)!;
      expect(upstream.path).toBe("/v1/chat/completions");
      expect(upstream.json).toEqual({
        model: MODEL,
        stream: false,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        temperature: 0.3,
        max_tokens: 50,
        stop: ["END"],
      });
      await settleAll();
      const logs = await consumeLogs(user.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]!.prompt_tokens).toBe(usage.promptTokenCount);
      expect(logs[0]!.completion_tokens).toBe(usage.candidatesTokenCount);
      expect(logs[0]!.quota).toBeGreaterThan(0n);
    });

    it("generateContentStream: text as it comes, usage on the last event", async () => {
      const chunks = [];
      for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: "hi" })) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks.map((c) => c.text ?? "").join("")).toBe(TEXT);
      const last = chunks.at(-1)!;
      expect(last.candidates?.[0]?.finishReason).toBe("STOP");
      expect(last.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
      expect(chunks.slice(0, -1).every((c) => c.usageMetadata === undefined)).toBe(true);
      expect(lastUpstream()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      await settleAll();
      const [log] = await consumeLogs(user.id);
      expect(log!.is_stream).toBe(true);
      expect(log!.completion_tokens).toBe(last.usageMetadata!.candidatesTokenCount);
    });

    it("streamGenerateContent without alt=sse answers one JSON array", async () => {
      const res = await fetch(`${relay.url}/v1beta/models/${MODEL}:streamGenerateContent?key=${user.key}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = (await res.json()) as Obj[];
      expect(Array.isArray(body)).toBe(true);
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({ candidates: [{ content: { role: "model", parts: [{ text: TEXT }] }, finishReason: "STOP" }] });
    });

    it("function calling, whole: calls come back with args; the answers go up as tool messages", async () => {
      mock.setBehaviour({
        toolCalls: [
          { name: "get_weather", arguments: '{"city":"Paris"}' },
          { name: "get_weather", arguments: '{"city":"Rome"}' },
        ],
      });
      const res = await ai.models.generateContent({
        model: MODEL,
        contents: "Weather in Paris and Rome?",
        config: {
          tools: [WEATHER_TOOL],
          toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
        },
      });
      expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([
        ["get_weather", { city: "Paris" }],
        ["get_weather", { city: "Rome" }],
      ]);
      const sent = lastUpstream();
      expect(sent.tool_choice).toBe("required");
      expect(sent.tools).toEqual([
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        },
      ]);

      // The caller answers both calls (by name, without ids, as many Gemini clients do).
      mock.setBehaviour({ content: "Paris 21°C, Rome 25°C." });
      const calls = res.candidates![0]!.content!.parts!.map((p) => ({
        functionCall: { name: p.functionCall!.name, args: p.functionCall!.args },
      }));
      const follow = await ai.models.generateContent({
        model: MODEL,
        contents: [
          { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
          { role: "model", parts: calls },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "get_weather", response: { temp: 21 } } },
              { functionResponse: { name: "get_weather", response: { temp: 25 } } },
            ],
          },
        ],
        config: { tools: [WEATHER_TOOL] },
      });
      expect(follow.text).toBe("Paris 21°C, Rome 25°C.");
      const messages = lastUpstream().messages as Obj[];
      const ids = ((messages[1]!.tool_calls as Obj[]) ?? []).map((c) => c.id);
      expect(ids).toHaveLength(2);
      expect(messages.slice(2)).toEqual([
        { role: "tool", tool_call_id: ids[0], content: '{"temp":21}' },
        { role: "tool", tool_call_id: ids[1], content: '{"temp":25}' },
      ]);
    });

    it("function calling, streamed: each call arrives whole, once", async () => {
      mock.setBehaviour({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris","days":3}' }] });
      const calls = [];
      let usage: unknown;
      for await (const chunk of await ai.models.generateContentStream({
        model: MODEL,
        contents: "Weather in Paris?",
        config: { tools: [WEATHER_TOOL] },
      })) {
        calls.push(...(chunk.functionCalls ?? []));
        usage ??= chunk.usageMetadata;
      }
      expect(calls.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris", days: 3 }]]);
      expect(calls[0]!.id).toMatch(/^call_/);
      expect(usage).toBeDefined();
    });

    it("an upstream failure mid-stream ends the stream with an error event the client raises", async () => {
      mock.setBehaviour({ errorAfterChunks: 2 });
      let text = "";
      const error = await (async () => {
        for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: "hi" })) text += chunk.text ?? "";
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toContain("INTERNAL");
      expect(text.length).toBeGreaterThan(0);
    });

    it("countTokens: counted locally, for free", async () => {
      const before = await user.quota();
      const res = await ai.models.countTokens({ model: MODEL, contents: "How many tokens is this sentence?" });
      expect(res.totalTokens).toBeGreaterThan(5);
      expect(res.totalTokens).toBeLessThan(40);
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs(user.id)).toHaveLength(0);
      // a bad key cannot count
      const refused = await genai("sk-nope")
        .models.countTokens({ model: MODEL, contents: "x" })
        .catch((e: unknown) => e);
      expect((refused as ApiError).status).toBe(401);
    });

    it("models.list and models.get: the key's models in Gemini's shape", async () => {
      const names: string[] = [];
      for await (const m of await ai.models.list()) {
        names.push(m.name!);
        expect(m.supportedActions).toEqual(["generateContent", "streamGenerateContent", "countTokens"]);
      }
      expect(names.sort()).toEqual(["models/gpt-4o", `models/${MODEL}`]);
      // paged as Google pages
      const pager = await ai.models.list({ config: { pageSize: 1 } });
      expect(pager.page).toHaveLength(1);
      expect(pager.hasNextPage()).toBe(true);
      expect((await pager.nextPage()).map((m) => m.name)).toHaveLength(1);
      expect(pager.hasNextPage()).toBe(false);
      const one = await ai.models.get({ model: MODEL });
      expect(one).toMatchObject({ name: `models/${MODEL}`, displayName: MODEL });
      const missing = await ai.models.get({ model: "gemini-nope" }).catch((e: unknown) => e);
      expect((missing as ApiError).status).toBe(404);
      expect(JSON.parse((missing as ApiError).message).error.status).toBe("NOT_FOUND");
    });

    it("a bad key is refused in Google's shape", async () => {
      const error = await genai("sk-notakey")
        .models.generateContent({ model: MODEL, contents: "hi" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(401);
      const body = JSON.parse((error as ApiError).message);
      expect(body.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
      expect(body.error.message).toContain("request id");
      expect(mock.requests).toHaveLength(0);
    });

    it("a bad body is a 400 INVALID_ARGUMENT that reserves and logs nothing", async () => {
      const before = await user.quota();
      const raw = await fetch(`${relay.url}/v1beta/models/${MODEL}:generateContent`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": user.key },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ bogus: true }] }] }),
      });
      expect(raw.status).toBe(400);
      const body = (await raw.json()) as { error: Obj };
      expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
      expect(body.error.message).toMatch(/contents\[0\]\.parts\[0\] has no supported data/);
      const notJson = await fetch(`${relay.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": user.key },
        body: "{not json",
      });
      expect(notJson.status).toBe(400);
      expect(((await notJson.json()) as { error: Obj }).error.status).toBe("INVALID_ARGUMENT");
      // through the official client: a context cache is the prompt itself, which another vendor never sees
      const sdk = await ai.models
        .generateContent({ model: MODEL, contents: "hi", config: { cachedContent: "cachedContents/abc" } })
        .catch((e: unknown) => e);
      expect((sdk as ApiError).status).toBe(400);
      expect((sdk as ApiError).message).toMatch(/cachedContent is not supported/);
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs(user.id)).toHaveLength(0);
    });

    it("an upstream refusal reaches the caller in Google's shape, whole and streamed", async () => {
      mock.setBehaviour({ failStatus: 429 });
      const whole = await ai.models.generateContent({ model: MODEL, contents: "hi" }).catch((e: unknown) => e);
      expect((whole as ApiError).status).toBe(429);
      expect(JSON.parse((whole as ApiError).message).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
      const streamed = await ai.models.generateContentStream({ model: MODEL, contents: "hi" }).catch((e: unknown) => e);
      expect((streamed as ApiError).status).toBe(429);
      await settleAll();
      expect(await consumeLogs(user.id)).toHaveLength(0);
    });

    it("an unknown model is a clean error in Google's shape", async () => {
      const error = await ai.models.generateContent({ model: "gemini-unserved", contents: "hi" }).catch((e: unknown) => e);
      expect((error as ApiError).status).toBe(404);
      expect(JSON.parse((error as ApiError).message).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    });

    it("costs what the chat completions path costs for the same usage", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } });
      const openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
      const res = await ai.models.generateContent({ model: MODEL, contents: "hi" });
      expect(res.usageMetadata).toMatchObject({ promptTokenCount: 1000, candidatesTokenCount: 200, totalTokenCount: 1200 });
      let streamedUsage: unknown;
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: "hi" })) streamedUsage ??= c.usageMetadata;
      expect(streamedUsage).toMatchObject({ promptTokenCount: 1000, candidatesTokenCount: 200 });
      await settleAll();
      const logs = await consumeLogs(user.id);
      expect(logs).toHaveLength(3);
      expect(logs[0]!.quota).toBeGreaterThan(0n);
      expect(logs.map((l) => l.quota)).toEqual([logs[0]!.quota, logs[0]!.quota, logs[0]!.quota]);
      expect(logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual([
        [1000, 200],
        [1000, 200],
        [1000, 200],
      ]);
    });
  });
}
