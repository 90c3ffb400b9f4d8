// What the operation tab's relay options change, through both relay entries: the sensitive-word
// filter refuses a prompt before anything is reserved or sent (the mock upstream sees nothing, no
// quota moves), and every ratio option changes the bill of the next request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { sessionCookieFor } from "@/tests/helpers/api";

async function consumeLogs(userId: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });
}

async function tokenRemain(tokenId: number) {
  return (await (await getDb()).token.findUniqueOrThrow({ where: { id: tokenId } })).remain_quota;
}

for (const entry of ENTRIES) {
  describe(`operation options through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${relay.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: "m-ratio,m-price,gpt-4o-mini", group: "default,vip" });
      await updateOption("ModelRatio", JSON.stringify({ "m-ratio": 2, "gpt-4o-mini": 0.075 }));
      await updateOption("CompletionRatio", JSON.stringify({}));
      await updateOption("ModelPrice", JSON.stringify({ "m-price": 0.01 }));
      await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 1 }));
      await updateOption("CheckSensitiveEnabled", "true");
      await updateOption("CheckSensitiveOnPromptEnabled", "true");
      await updateOption("SensitiveWords", "forbidden fruit\n违禁词");
    });

    describe("sensitive words", () => {
      const refusedCases: [string, string, Record<string, unknown>][] = [
        [
          "a message string",
          "/v1/chat/completions",
          { model: "m-ratio", messages: [{ role: "user", content: "Tell me about FORBIDDEN Fruit" }] },
        ],
        [
          "a text part",
          "/v1/chat/completions",
          { model: "m-ratio", messages: [{ role: "user", content: [{ type: "text", text: "这是违禁词" }] }] },
        ],
        ["a completions prompt", "/v1/completions", { model: "m-ratio", prompt: ["ok", "forbidden fruit"] }],
        ["an embeddings input", "/v1/embeddings", { model: "m-ratio", input: "forbidden fruits" }],
      ];
      for (const [what, path, body] of refusedCases) {
        it(`refuses ${what} with a 400 before any reservation or upstream call`, async () => {
          const u = await seedUser({ token: { unlimited_quota: false, remain_quota: 1_000_000 } });
          const before = await u.quota();
          const res = await post(path, body, { authorization: `Bearer ${u.key}` });
          expect(res.status).toBe(400);
          const json = await res.json();
          expect(json.error.code).toBe("sensitive_words_detected");
          expect(json.error.message).toMatch(/^请求内容包含敏感词：(forbidden fruit|违禁词)/);
          await settleAll();
          expect(mock.requests).toHaveLength(0);
          expect(await u.quota()).toBe(before);
          expect(await tokenRemain(u.tokenId)).toBe(1_000_000n);
          expect(await consumeLogs(u.id)).toHaveLength(0);
        });
      }

      // Other protocols' callers: the check reads their own text (system, messages, content
      // blocks, tool results), passed through (Responses on an OpenAI channel) or converted alike.
      const callerCases: [string, string, Record<string, unknown>, (key: string) => Record<string, string>][] = [
        [
          "an Anthropic system text",
          "/v1/messages",
          {
            model: "m-ratio",
            max_tokens: 10,
            system: [{ type: "text", text: "forbidden fruit" }],
            messages: [{ role: "user", content: "hi" }],
          },
          (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
        ],
        [
          "an Anthropic tool result",
          "/v1/messages",
          {
            model: "m-ratio",
            max_tokens: 10,
            messages: [
              { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "a" } }] },
              { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "这是违禁词" }] }] },
            ],
          },
          (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
        ],
        [
          "a Responses input (passed through)",
          "/v1/responses",
          { model: "m-ratio", input: [{ role: "user", content: [{ type: "input_text", text: "Forbidden fruit?" }] }] },
          (key) => ({ authorization: `Bearer ${key}` }),
        ],
        [
          "a Gemini part",
          "/v1beta/models/m-ratio:generateContent",
          { contents: [{ role: "user", parts: [{ text: "违禁词" }] }] },
          (key) => ({ "x-goog-api-key": key }),
        ],
      ];
      for (const [what, path, body, headers] of callerCases) {
        it(`refuses ${what} with a 400 in the caller's shape`, async () => {
          const u = await seedUser();
          const before = await u.quota();
          const res = await post(path, body, headers(u.key));
          expect(res.status).toBe(400);
          expect((await res.json()).error.message).toMatch(/^请求内容包含敏感词：(forbidden fruit|违禁词)/);
          await settleAll();
          expect(mock.requests).toHaveLength(0);
          expect(await u.quota()).toBe(before);
        });
      }

      it("does not read tool declarations or a tool call's arguments as the caller's prompt", async () => {
        const u = await seedUser();
        const res = await post(
          "/v1/messages",
          {
            model: "m-ratio",
            max_tokens: 10,
            tools: [{ name: "pick", description: "picks forbidden fruit", input_schema: { type: "object", properties: {} } }],
            messages: [
              { role: "user", content: "hi" },
              { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "pick", input: { text: "forbidden fruit" } }] },
              { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "done" }] },
            ],
          },
          { "x-api-key": u.key, "anthropic-version": "2023-06-01" },
        );
        expect(res.status).toBe(200);
        expect(mock.requests).toHaveLength(1);
      });

      it("refuses a large body (read off the event loop) the same way", async () => {
        const u = await seedUser();
        const before = await u.quota();
        const filler = "lorem ipsum ".repeat(30_000);
        const res = await post(
          "/v1/chat/completions",
          { model: "m-ratio", messages: [{ role: "user", content: `${filler} forbidden fruit ${filler}` }] },
          { authorization: `Bearer ${u.key}` },
        );
        expect(res.status).toBe(400);
        expect((await res.json()).error.code).toBe("sensitive_words_detected");
        await settleAll();
        expect(mock.requests).toHaveLength(0);
        expect(await u.quota()).toBe(before);
      });

      it("refuses the playground's prompt too", async () => {
        const u = await seedUser();
        const before = await u.quota();
        const cookie = await sessionCookieFor(u.id);
        const res = await post(
          "/pg/chat/completions",
          { model: "m-ratio", messages: [{ role: "user", content: "违禁词" }] },
          { cookie, "new-api-user": String(u.id) },
        );
        expect(res.status).toBe(400);
        expect((await res.json()).error.code).toBe("sensitive_words_detected");
        await settleAll();
        expect(mock.requests).toHaveLength(0);
        expect(await u.quota()).toBe(before);
      });

      it("lets the same prompt through when either switch is off, and follows a changed list", async () => {
        const u = await seedUser();
        const body = { model: "m-ratio", messages: [{ role: "user", content: "forbidden fruit" }] };
        const auth = { authorization: `Bearer ${u.key}` };
        await updateOption("CheckSensitiveOnPromptEnabled", "false");
        expect((await post("/v1/chat/completions", body, auth)).status).toBe(200);
        await updateOption("CheckSensitiveOnPromptEnabled", "true");
        await updateOption("CheckSensitiveEnabled", "false");
        expect((await post("/v1/chat/completions", body, auth)).status).toBe(200);
        await updateOption("CheckSensitiveEnabled", "true");
        expect((await post("/v1/chat/completions", body, auth)).status).toBe(400);
        await updateOption("SensitiveWords", "something else");
        expect((await post("/v1/chat/completions", body, auth)).status).toBe(200);
        expect(mock.requests).toHaveLength(3);
      });
    });

    describe("ratios", () => {
      const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
      async function billOf(model: string, group = "default") {
        const u = await seedUser({ group });
        await client(u.key).chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
        await settleAll();
        return (await consumeLogs(u.id))[0]!.quota;
      }

      it("ModelRatio, CompletionRatio and GroupRatio change the bill of the next request", async () => {
        mock.setBehaviour({ usage });
        expect(await billOf("m-ratio")).toBe(2200n); // 2 × (1000 + 100 × 1)
        await updateOption("ModelRatio", JSON.stringify({ "m-ratio": 3 }));
        expect(await billOf("m-ratio")).toBe(3300n);
        await updateOption("CompletionRatio", JSON.stringify({ "m-ratio": 5 }));
        expect(await billOf("m-ratio")).toBe(4500n); // 3 × (1000 + 100 × 5)
        await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 0.5 }));
        expect(await billOf("m-ratio", "vip")).toBe(2250n);
      });

      it("a CompletionRatio set by root overrides the built-in one", async () => {
        mock.setBehaviour({ usage });
        // Built in: gpt-4o-mini completes at 4 → 0.075 × (1000 + 400) = 105.
        expect(await billOf("gpt-4o-mini")).toBe(105n);
        await updateOption("CompletionRatio", JSON.stringify({ "gpt-4o-mini": 1 }));
        expect(await billOf("gpt-4o-mini")).toBe(83n); // 0.075 × 1100 = 82.5
      });

      it("ModelPrice bills per call and wins over a ratio", async () => {
        mock.setBehaviour({ usage });
        expect(await billOf("m-price")).toBe(5000n); // 0.01 × 500 000
        await updateOption("ModelPrice", JSON.stringify({ "m-price": 0.02, "m-ratio": 0.001 }));
        expect(await billOf("m-price")).toBe(10000n);
        expect(await billOf("m-ratio")).toBe(500n);
      });
    });
  });
}
