// Absurd upstream usage is billed within what the request could have used (issue 20.2): a vendor
// answering `completion_tokens: 1e12` is charged max_tokens (else the model's output limit), a
// prompt count far over what was sent is charged 4 × the local count + the allowance, and the log
// row keeps the vendor's numbers in `other.usage_anomaly`. Whole and streamed answers, an OpenAI
// vendor and an Anthropic one.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { PROMPT_ALLOWANCE } from "@/lib/billing/usage-bounds";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

async function lastLog(userId: number) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });
}

/** Reads a whole answer or a stream to its end. */
async function drain(res: Response) {
  expect(res.status).toBe(200);
  await res.text();
}

for (const entry of ENTRIES) {
  describe(`absurd upstream usage through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let claude: AnthropicMock;
    let relay: RelayServer;

    const chat = (key: string, body: Record<string, unknown>) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
      });

    beforeAll(async () => {
      mock = await startOpenAIMock();
      claude = await startAnthropicMock({ apiKey: "sk-ant-mock" });
      relay = await startRelay(entry);
      const ones = { "m-flat": 1, "gpt-4o": 1, "claude-3-5-haiku-latest": 1 };
      await updateOption("ModelRatio", JSON.stringify(ones));
      await updateOption("CompletionRatio", JSON.stringify(ones));
      await updateOption("GroupRatio", JSON.stringify({ default: 1 }));
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await claude.close();
    });
    beforeEach(async () => {
      mock.reset();
      claude.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: "m-flat,gpt-4o" });
      await seedChannel({ type: 14, base_url: claude.url, key: "sk-ant-mock", models: "claude-3-5-haiku-latest" });
    });

    for (const stream of [false, true]) {
      const how = stream ? "streamed" : "whole";
      const streaming = stream ? { stream: true, stream_options: { include_usage: true } } : {};

      it(`${how}: completion_tokens 1e12 is billed at the request's max_tokens and flagged`, async () => {
        mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 1e12, total_tokens: 1e12 + 10 } });
        const u = await seedUser({ quota: 100_000 });
        await drain(await chat(u.key, { model: "m-flat", max_tokens: 100, ...streaming }));
        await settleAll();
        const log = await lastLog(u.id);
        expect(log.completion_tokens).toBe(100);
        expect(log.quota).toBe(110n);
        expect(await u.quota()).toBe(100_000n - 110n);
        expect(JSON.parse(log.other).usage_anomaly).toEqual({ prompt_tokens: 10, completion_tokens: 1e12, completion_limit: 100 });
      });

      it(`${how}: without max_tokens the model's output limit bounds it, and the balance goes no lower`, async () => {
        mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 1e12, total_tokens: 1e12 + 10 } });
        const u = await seedUser({ quota: 10_000 });
        await drain(await chat(u.key, { model: "gpt-4o", ...streaming }));
        await settleAll();
        // gpt-4o answers at most 16 384 tokens: 10 + 16 384 at ratio 1, the one overrun below zero.
        expect((await lastLog(u.id)).quota).toBe(16_394n);
        expect(await u.quota()).toBe(10_000n - 16_394n);
        const next = await chat(u.key, { model: "gpt-4o", ...streaming });
        expect(next.status).toBe(403);
        expect(mock.requests).toHaveLength(1);
      });

      it(`${how}: prompt_tokens far over what was sent is billed at 4 × the local count + the allowance`, async () => {
        mock.setBehaviour({ usage: { prompt_tokens: 1_000_000, completion_tokens: 5, total_tokens: 1_000_005 } });
        const u = await seedUser({ quota: 100_000 });
        await drain(await chat(u.key, { model: "m-flat", max_tokens: 100, ...streaming }));
        await settleAll();
        const log = await lastLog(u.id);
        const anomaly = JSON.parse(log.other).usage_anomaly;
        expect(anomaly).toMatchObject({ prompt_tokens: 1_000_000, completion_tokens: 5, completion_limit: 100 });
        // "hi" is a few tokens and ~100 bytes: the bound is the allowance and little more.
        expect(anomaly.prompt_limit).toBeGreaterThanOrEqual(PROMPT_ALLOWANCE);
        expect(anomaly.prompt_limit).toBeLessThan(PROMPT_ALLOWANCE + 400);
        expect(log.prompt_tokens).toBe(anomaly.prompt_limit);
        expect(log.quota).toBe(BigInt(anomaly.prompt_limit + 5));
      });

      it(`${how}: prompt_tokens 1e12 (beyond any context) is billed at the local count and flagged`, async () => {
        mock.setBehaviour({ usage: { prompt_tokens: 1e12, completion_tokens: 5, total_tokens: 1e12 + 5 } });
        const u = await seedUser({ quota: 100_000 });
        await drain(await chat(u.key, { model: "m-flat", max_tokens: 100, ...streaming }));
        await settleAll();
        const log = await lastLog(u.id);
        expect(JSON.parse(log.other).usage_anomaly).toEqual({ prompt_tokens: 1e12, completion_tokens: 5, completion_limit: 100 });
        expect(log.prompt_tokens).toBeGreaterThan(0);
        expect(log.prompt_tokens).toBeLessThan(20);
        expect(log.quota).toBe(BigInt(log.prompt_tokens + 5));
      });

      it(`${how}: an Anthropic vendor's output_tokens 1e12 is billed at max_tokens`, async () => {
        claude.setBehaviour({
          usage: { input_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1e12 },
        });
        const u = await seedUser({ quota: 100_000 });
        await drain(await chat(u.key, { model: "claude-3-5-haiku-latest", max_tokens: 100, ...streaming }));
        await settleAll();
        const log = await lastLog(u.id);
        expect(log.completion_tokens).toBe(100);
        expect(log.quota).toBe(112n);
        expect(JSON.parse(log.other).usage_anomaly).toMatchObject({ completion_tokens: 1e12, completion_limit: 100 });
      });
    }

    it("a prompt with a file the relay cannot size is billed as the upstream reports it", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 1_000_000, completion_tokens: 5, total_tokens: 1_000_005 } });
      const u = await seedUser({ quota: 10_000_000 });
      const content = [
        { type: "text", text: "summarise" },
        { type: "file", file: { file_id: "file-abc123" } },
      ];
      await drain(await chat(u.key, { model: "m-flat", max_tokens: 100, messages: [{ role: "user", content }] }));
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.quota).toBe(1_000_005n);
      expect(JSON.parse(log.other).usage_anomaly).toBeUndefined();
    });

    it("sane usage is billed as reported, with no anomaly", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 1_000, completion_tokens: 90, total_tokens: 1_090 } });
      const u = await seedUser({ quota: 100_000 });
      await drain(await chat(u.key, { model: "m-flat", max_tokens: 100 }));
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.quota).toBe(1_090n);
      expect(JSON.parse(log.other).usage_anomaly).toBeUndefined();
    });
  });
}
