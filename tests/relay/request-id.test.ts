// The request id a caller can quote to an admin, through both relay entries: every answer carries
// it in `x-request-id` and, for new-api's clients, `x-oneapi-request-id`; every error message in
// every caller protocol (OpenAI, Anthropic, Gemini, Responses, the task platforms) ends with
// "(request id: …)", the same id; a caller's own X-Request-Id is not taken.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
/** On a channel that takes chat only (type 43): a Responses call to it is converted, its stream encoded by the relay. */
const CHAT_ONLY = "gpt-4o";
const HI = [{ role: "user", content: "hi" }];

/** The answer's request id, after checking both headers carry the same one. */
function requestIdOf(res: Response): string {
  const id = res.headers.get("x-request-id");
  expect(id).toMatch(/^\w{10,}$/);
  expect(res.headers.get("x-oneapi-request-id")).toBe(id);
  return id!;
}

const endsWithId = (id: string) => expect.stringMatching(new RegExp(` \\(request id: ${id}\\)$`));

for (const entry of ENTRIES) {
  describe(`request ids through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;

    const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${user.key}` }) =>
      fetch(`${relay.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });

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
      await seedChannel({ base_url: mock.url, models: MODEL });
      await seedChannel({ type: 43, base_url: mock.url, models: CHAT_ONLY });
      user = await seedUser();
    });

    it("are on a whole answer, a stream and the model list, each its own, never the caller's", async () => {
      const whole = await post(
        "/v1/chat/completions",
        { model: MODEL, messages: HI },
        { authorization: `Bearer ${user.key}`, "x-request-id": "mine-1" },
      );
      expect(whole.status).toBe(200);
      const wholeId = requestIdOf(whole);
      expect(wholeId).not.toBe("mine-1");
      await whole.json();

      const stream = await post("/v1/chat/completions", { model: MODEL, messages: HI, stream: true });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const streamId = requestIdOf(stream);
      expect(await stream.text()).toContain("data: [DONE]");

      const models = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(models.status).toBe(200);
      const modelsId = requestIdOf(models);
      expect(new Set([wholeId, streamId, modelsId]).size).toBe(3);
    });

    it("end every protocol's error message, the upstream's refusal included", async () => {
      mock.setBehaviour({ failStatus: 400, failError: { message: "mock refused" } });
      const openai = await post("/v1/chat/completions", { model: MODEL, messages: HI });
      expect(openai.status).toBe(400);
      expect(await openai.json()).toMatchObject({ error: { message: endsWithId(requestIdOf(openai)) } });

      const anthropic = await post(
        "/v1/messages",
        { model: MODEL, max_tokens: 20, messages: HI },
        { "x-api-key": user.key, "anthropic-version": "2023-06-01" },
      );
      expect(anthropic.status).toBe(400);
      expect(await anthropic.json()).toMatchObject({ type: "error", error: { message: endsWithId(requestIdOf(anthropic)) } });

      const gemini = await post(
        `/v1beta/models/${MODEL}:generateContent?key=${user.key}`,
        { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
        {},
      );
      expect(gemini.status).toBe(400);
      expect(await gemini.json()).toMatchObject({ error: { code: 400, message: endsWithId(requestIdOf(gemini)) } });

      for (const model of [MODEL, CHAT_ONLY]) {
        const responses = await post("/v1/responses", { model, input: "hi" });
        expect(responses.status).toBe(400);
        expect(await responses.json()).toMatchObject({ error: { message: endsWithId(requestIdOf(responses)) } });
      }
    });

    it("end every protocol's refusal of a wrong key, the task platforms' included", async () => {
      const wrong = "sk-0123456789abcdef0123456789abcdef0123456789abcdef";
      const bearer = { authorization: `Bearer ${wrong}` };
      const cases: [string, string, Record<string, string>, unknown, (body: any) => string][] = [
        ["OpenAI", "/v1/chat/completions", bearer, { model: MODEL, messages: HI }, (b) => b.error.message],
        ["Anthropic", "/v1/messages", { "x-api-key": wrong }, { model: MODEL, max_tokens: 20, messages: HI }, (b) => b.error.message],
        ["Gemini", `/v1beta/models/${MODEL}:generateContent?key=${wrong}`, {}, { contents: [] }, (b) => b.error.message],
        ["Responses", "/v1/responses", bearer, { model: MODEL, input: "hi" }, (b) => b.error.message],
        ["Midjourney", "/mj/submit/imagine", bearer, { prompt: "a cat" }, (b) => b.description],
        ["Suno", "/suno/submit/music", bearer, { prompt: "a song" }, (b) => b.message],
        ["OpenAI videos", "/v1/videos", bearer, { model: "sora-2", prompt: "a cat" }, (b) => b.error.message],
      ];
      for (const [name, path, headers, body, messageOf] of cases) {
        const res = await post(path, body, headers);
        expect(res.status, name).toBeGreaterThanOrEqual(400);
        const id = requestIdOf(res);
        expect(messageOf(await res.json()), name).toMatch(new RegExp(` \\(request id: ${id}\\)$`));
      }
    });

    it("end the error that cuts a stream, in each protocol's stream", async () => {
      mock.setBehaviour({ errorAfterChunks: 1, content: "one two three" });
      const streams: [string, string, Record<string, string>, unknown][] = [
        ["OpenAI", "/v1/chat/completions", { authorization: `Bearer ${user.key}` }, { model: MODEL, messages: HI, stream: true }],
        ["Anthropic", "/v1/messages", { "x-api-key": user.key }, { model: MODEL, max_tokens: 20, messages: HI, stream: true }],
        [
          "Gemini",
          `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${user.key}`,
          {},
          { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
        ],
        ["Responses", "/v1/responses", { authorization: `Bearer ${user.key}` }, { model: CHAT_ONLY, input: "hi", stream: true }],
      ];
      for (const [name, path, headers, body] of streams) {
        const res = await post(path, body, headers);
        expect(res.status, `${name}: ${res.status === 200 ? "" : await res.clone().text()}`).toBe(200);
        const id = requestIdOf(res);
        expect(await res.text(), name).toContain(`(request id: ${id})`);
      }
    });
  });
}
