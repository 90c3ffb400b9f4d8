// Errors as the vendors give them (issue 22 item 4), read by each caller's official SDK through
// both entries: a model no channel serves is a 404 in the caller's shape and costs nothing; an
// overloaded answer (529, `overloaded_error`) only when every channel tried was overloaded; a
// `retry-after` on every 429 and 529, the upstream's own when it sent one.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { DEFAULT_RETRY_AFTER_SECONDS } from "@/lib/relay/errors";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const CLAUDE = "claude-3-5-sonnet-20241022";
const UNSERVED = "no-such-model-22";
const NO_CHANNEL = `当前分组 default 下对于模型 ${UNSERVED} 无可用渠道`;

async function logCount(userId: number): Promise<number> {
  return (await getDb()).log.count({ where: { user_id: userId } });
}

for (const entry of ENTRIES) {
  describe(`relay errors in the caller's shape (${entry} entry)`, () => {
    let a: OpenAIMock;
    let b: OpenAIMock;
    let claude: AnthropicMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;

    beforeAll(async () => {
      a = await startOpenAIMock();
      b = await startOpenAIMock();
      claude = await startAnthropicMock({ apiKey: "sk-ant-mock" });
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await a.close();
      await b.close();
      await claude.close();
      await updateOption("RetryTimes", "0");
    });
    beforeEach(async () => {
      a.reset();
      b.reset();
      claude.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
    });

    describe("a model no channel serves", () => {
      beforeEach(async () => {
        await seedChannel({ base_url: a.url, models: MODEL });
      });

      it("is OpenAI's 404 model_not_found on chat completions and Responses", async () => {
        const openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
        const chat = await openai.chat.completions.create({ model: UNSERVED, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        expect(chat).toBeInstanceOf(OpenAI.NotFoundError);
        expect(chat.error).toMatchObject({ type: "invalid_request_error", code: "model_not_found" });
        expect(chat.error.message).toContain(NO_CHANNEL);
        const responses = await openai.responses.create({ model: UNSERVED, input: "hi" }).catch((e) => e);
        expect(responses).toBeInstanceOf(OpenAI.NotFoundError);
        expect(responses.error).toMatchObject({ type: "invalid_request_error", code: "model_not_found" });
      });

      it("is Anthropic's 404 not_found_error, streamed or not", async () => {
        const anthropic = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
        const params = { model: UNSERVED, max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
        const whole = await anthropic.messages.create(params).catch((e) => e);
        expect(whole).toBeInstanceOf(Anthropic.NotFoundError);
        expect(whole.error).toMatchObject({
          type: "error",
          error: { type: "not_found_error", message: expect.stringContaining(NO_CHANNEL) },
        });
        const streamed = await anthropic.messages.create({ ...params, stream: true }).catch((e) => e);
        expect(streamed).toBeInstanceOf(Anthropic.NotFoundError);
      });

      it("is Google's 404 NOT_FOUND", async () => {
        const ai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
        const error = await ai.models.generateContent({ model: UNSERVED, contents: "hi" }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(404);
        expect(JSON.parse((error as ApiError).message).error).toMatchObject({
          code: 404,
          status: "NOT_FOUND",
          message: expect.stringContaining(NO_CHANNEL),
        });
      });

      it("reaches no upstream and charges nothing", async () => {
        const before = await user.quota();
        const res = await fetch(`${relay.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: UNSERVED, messages: [{ role: "user", content: "hi" }] }),
        });
        expect(res.status).toBe(404);
        // Not a "come back later": no retry-after for a model that will not appear by waiting.
        expect(res.headers.get("retry-after")).toBeNull();
        expect(a.requests).toHaveLength(0);
        await settleAll();
        expect(await user.quota()).toBe(before);
        expect(await logCount(user.id)).toBe(0);
      });
    });

    describe("overloaded and rate-limited upstreams", () => {
      it("answers 529 overloaded_error with retry-after when every Claude channel is overloaded", async () => {
        await updateOption("RetryTimes", "1");
        await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-mock" });
        await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-mock" });
        claude.setBehaviour({ failStatus: 529 });
        const before = await user.quota();
        const res = await fetch(`${relay.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": user.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
          body: JSON.stringify({ model: CLAUDE, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
        });
        expect(claude.requests).toHaveLength(2);
        expect(res.status).toBe(529);
        expect(res.headers.get("retry-after")).toBe(String(DEFAULT_RETRY_AFTER_SECONDS));
        expect(await res.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
        await settleAll();
        expect(await user.quota()).toBe(before);
      });

      it("answers the other failure, not overloaded, when only some channels were overloaded", async () => {
        await updateOption("RetryTimes", "1");
        // The higher priority goes first: an outage (500), then an overloaded channel (529).
        await seedChannel({ base_url: a.url, models: MODEL, priority: 10 });
        await seedChannel({ base_url: b.url, models: MODEL, priority: 0 });
        a.setBehaviour({ failStatus: 500 });
        b.setBehaviour({ failStatus: 529, failError: { type: "overloaded_error", message: "Overloaded" } });
        const anthropic = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
        const error = await anthropic.messages
          .create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
          .catch((e) => e);
        expect(a.requests).toHaveLength(1);
        expect(b.requests).toHaveLength(1);
        expect(error).toBeInstanceOf(Anthropic.InternalServerError);
        expect(error.status).toBe(500);
        expect(error.error).toMatchObject({ type: "error", error: { type: "api_error" } });
      });

      it("calls a 503 overloaded only when the upstream says so", async () => {
        await seedChannel({ base_url: a.url, models: MODEL });
        const anthropic = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
        const ask = () =>
          anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        a.setBehaviour({ failStatus: 503 });
        const overloaded = await ask();
        expect(overloaded.status).toBe(503);
        expect(overloaded.error).toMatchObject({ error: { type: "overloaded_error" } });
        a.setBehaviour({ failStatus: 503, failError: { message: "Service maintenance", type: "server_error" } });
        const down = await ask();
        expect(down.status).toBe(503);
        expect(down.error).toMatchObject({ error: { type: "api_error" } });
      });

      it("passes the upstream's retry-after on a 429, and gives its own when the upstream named none", async () => {
        await seedChannel({ base_url: a.url, models: MODEL });
        const post = () =>
          fetch(`${relay.url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
            body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
          });
        // OpenAI's own 429 says 20 seconds (the mock's, as OpenAI's message does).
        a.setBehaviour({ failStatus: 429 });
        const openaiSaid = await post();
        expect(openaiSaid.status).toBe(429);
        expect(openaiSaid.headers.get("retry-after")).toBe("20");
        a.setBehaviour({ failStatus: 429, headers: { "retry-after": "7" } });
        expect((await post()).headers.get("retry-after")).toBe("7");
        // An overloaded upstream that names no wait: the relay's default.
        a.setBehaviour({ failStatus: 529, failError: { type: "overloaded_error", message: "Overloaded" } });
        const untold = await post();
        expect(untold.status).toBe(529);
        expect(untold.headers.get("retry-after")).toBe(String(DEFAULT_RETRY_AFTER_SECONDS));
        // The OpenAI SDK reads a 429 as a RateLimitError, as from OpenAI itself.
        a.setBehaviour({ failStatus: 429 });
        const openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
        const error = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        expect(error).toBeInstanceOf(OpenAI.RateLimitError);
        expect(error.headers.get("retry-after")).toBe("20");
      });
    });
  });
}
