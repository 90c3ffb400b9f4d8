// Gemini callers on channels that speak Gemini's API (Gemini type 24, Vertex AI type 41 with a
// Gemini model): the official @google/genai client through both relay entries, against the mock
// Google. The caller's body goes up as it came (Gemini-only members included), the answer comes
// back as Google sent it, billed from its usageMetadata. streamGenerateContent without `alt=sse`
// (one JSON array) is converted, and Google's built-in tools are refused on a converting channel.
import { GoogleGenAI, HarmBlockThreshold, HarmCategory } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, type RelayServer, seedChannel, seedUser, settleAll, startRelay } from "@/tests/helpers/relay";

const GEMINI = "gemini-2.0-flash";
const KEY = "AIza-test-key";
const TEXT = "Hello! How can I help you today?";
type Obj = Record<string, any>;

for (const entry of ENTRIES) {
  describe(`Gemini callers on Gemini channels pass through (${entry} entry)`, () => {
    let google: GoogleMock;
    let openai: OpenAIMock;
    let relay: RelayServer;
    let ai: GoogleGenAI;
    let user: Awaited<ReturnType<typeof seedUser>>;
    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

    beforeAll(async () => {
      google = await startGoogleMock({ apiKey: KEY });
      openai = await startOpenAIMock({ apiKey: "sk-up" });
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ [GEMINI]: 1 }));
      await updateOption("CompletionRatio", JSON.stringify({ [GEMINI]: 3 }));
    });
    afterAll(async () => {
      await relay.close();
      await google.close();
      await openai.close();
    });
    beforeEach(async () => {
      google.reset();
      openai.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
      ai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
    });

    it("generateContent: the caller's body goes up as it came, the answer comes back as Google's, billed from usageMetadata", async () => {
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: KEY });
      const before = await user.quota();
      const res = await ai.models.generateContent({
        model: GEMINI,
        contents: "hi",
        config: {
          systemInstruction: "Be brief.",
          safetySettings: [{ category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_ONLY_HIGH }],
          thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
        },
      });
      const seen = google.requests.at(-1)!;
      expect(seen.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect(seen.headers["x-goog-api-key"]).toBe(KEY);
      expect(seen.query.has("key")).toBe(false);
      // The SDK's own headers go with it (PASSTHROUGH_HEADERS), nothing else of the caller's.
      expect(seen.headers["x-goog-api-client"]).toMatch(/^google-genai-sdk\//);
      expect(seen.headers["user-agent"]).toMatch(/google-genai-sdk/);
      expect(JSON.stringify(seen.headers)).not.toContain(user.key);
      // Gemini-only members reach Google untouched.
      expect(seen.json).toMatchObject({
        safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }],
        generationConfig: { thinkingConfig: { thinkingBudget: 512, includeThoughts: true } },
        systemInstruction: { parts: [{ text: "Be brief." }] },
      });
      // Google's own answer: its thought part, its responseId, its usage.
      expect(res.responseId).toBe("v0gjZ8mUL8WjmecP2oWWyQE");
      expect(res.candidates![0]!.content!.parts![0]).toMatchObject({ thought: true });
      expect(res.text).toBe(TEXT);
      expect(res.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 9, thoughtsTokenCount: 21 });

      await settleAll();
      const [log] = await consumeLogs();
      // Thoughts are billed as output: 9 + 21. Of the 11 prompt tokens 4 were cache reads, at
      // Gemini 2.0's built-in cache ratio 0.25: (7 + 4 × 0.25 + 30 × 3) × 1.
      expect(log).toMatchObject({ model_name: GEMINI, prompt_tokens: 11, completion_tokens: 30, quota: 98n, is_stream: false });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true });
      expect(await user.quota()).toBe(before - 98n);
    });

    it("generateContentStream: Google's own events, billed from the last event's usageMetadata", async () => {
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: KEY });
      let text = "";
      let last: Obj | undefined;
      for await (const chunk of await ai.models.generateContentStream({
        model: GEMINI,
        contents: "hi",
        config: { thinkingConfig: { thinkingBudget: 0 } },
      })) {
        text += chunk.text ?? "";
        last = chunk as Obj;
      }
      expect(text).toBe(TEXT);
      expect(last!.responseId).toBe("Ylgjz9aDIe-omecPg_rVmQk");
      const seen = google.requests.at(-1)!;
      expect(seen.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent`);
      expect(seen.query.get("alt")).toBe("sse");
      expect(seen.json).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });

      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({ is_stream: true, prompt_tokens: 11, completion_tokens: 9, quota: 38n });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true });
    });

    it("converts streamGenerateContent without alt=sse (one JSON array), which cannot be read as it streams", async () => {
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: KEY });
      const res = await fetch(`${relay.url}/v1beta/models/${GEMINI}:streamGenerateContent`, {
        method: "POST",
        headers: { "x-goog-api-key": user.key, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }], labels: { team: "a" } }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Obj[];
      expect(Array.isArray(body)).toBe(true);
      expect(body[0]!.candidates[0].content.parts.map((p: Obj) => p.text).join("")).toContain("help you today?");
      // The canonical request, converted back into Gemini's: the caller's own members are not there.
      const seen = google.requests.at(-1)!;
      expect(seen.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect((seen.json as Obj).labels).toBeUndefined();
      expect((seen.json as Obj).contents).toEqual([{ role: "user", parts: [{ text: "hi" }] }]);
    });

    it("sends Vertex AI's Gemini models the caller's body with the channel's access token", async () => {
      await seedChannel({ type: 41, base_url: google.url, models: GEMINI, key: google.serviceAccount(), other: "us-central1" });
      const res = await ai.models.generateContent({
        model: GEMINI,
        contents: "hi",
        config: { safetySettings: [{ category: HarmCategory.HARM_CATEGORY_HATE_SPEECH, threshold: HarmBlockThreshold.BLOCK_NONE }] },
      });
      expect(res.text).toBe(TEXT);
      const seen = google.requests.at(-1)!;
      expect(seen.path).toBe(`/v1/projects/qiao-test/locations/us-central1/publishers/google/models/${GEMINI}:generateContent`);
      expect(seen.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
      expect(seen.json).toMatchObject({ safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }] });
      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({ prompt_tokens: 11, completion_tokens: 30 });
    });

    it("passes Google's built-in tools through to a Gemini channel", async () => {
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: KEY });
      const res = await ai.models.generateContent({ model: GEMINI, contents: "news?", config: { tools: [{ googleSearch: {} }] } });
      expect(res.candidates!.length).toBeGreaterThan(0);
      expect((google.requests.at(-1)!.json as Obj).tools).toEqual([{ googleSearch: {} }]);
      await settleAll();
      expect(await consumeLogs()).toHaveLength(1);
    });

    it("leaves Google's built-in tools out on a converting channel, names them, and bills the answer once", async () => {
      await seedChannel({ type: 1, base_url: openai.url, models: GEMINI, key: "sk-up" });
      const before = await user.quota();
      const answer = await ai.models.generateContent({
        model: GEMINI,
        contents: "hi",
        config: { tools: [{ googleSearch: {} }, { codeExecution: {} }] },
      });
      expect(answer.text).toBe("Hello! How can I help you today?");
      expect(answer.sdkHttpResponse?.headers?.["x-qiao-dropped"]).toBe("google_search,code_execution");
      expect(openai.requests).toHaveLength(1);
      expect(openai.requests[0]!.json).not.toHaveProperty("tools");
      await settleAll();
      const logs = await consumeLogs();
      expect(logs).toHaveLength(1);
      expect(JSON.parse(logs[0]!.other)).toMatchObject({ dropped: ["google_search", "code_execution"] });
      expect(before - (await user.quota())).toBe(BigInt(logs[0]!.quota));
    });
  });
}
