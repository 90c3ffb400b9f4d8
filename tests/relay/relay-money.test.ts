// What the relay charges: each pricing kind to the unit, hostile usage, disconnects, mid-stream
// failures and concurrent spending, through both relay entries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

async function lastLog(userId: number, type = 2) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type }, orderBy: { id: "desc" } });
}

for (const entry of ENTRIES) {
  describe(`relay billing through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    const clientFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 });

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ "m-ratio": 2.5, "m-flat": 1, "tts-1": 7.5, "dall-e-3": 20 }));
      await updateOption("CompletionRatio", JSON.stringify({ "m-ratio": 3, "m-flat": 1 }));
      await updateOption("ModelPrice", JSON.stringify({ "m-price": 0.02, "dall-e-3": 0.04 }));
      await updateOption("CacheRatio", JSON.stringify({ "m-ratio": 0.5 }));
      await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 1.5 }));
      await updateOption("UserUsableGroups", JSON.stringify({ default: "默认分组", vip: "vip分组" }));
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: "m-ratio,m-flat,m-price,tts-1,dall-e-3", group: "default,vip" });
    });

    it("ratio pricing: ratio × group × (prompt + completion × completion ratio)", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } });
      const u = await seedUser();
      const before = await u.quota();
      await clientFor(u.key).chat.completions.create({ model: "m-ratio", messages: [{ role: "user", content: "hi" }] });
      await settleAll();
      // 2.5 × 1 × (1000 + 200 × 3) = 4000
      expect((await lastLog(u.id)).quota).toBe(4000n);
      expect(before - (await u.quota())).toBe(4000n);
    });

    it("group ratio multiplies", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } });
      const u = await seedUser({ group: "vip" });
      await clientFor(u.key).chat.completions.create({ model: "m-ratio", messages: [{ role: "user", content: "hi" }] });
      await settleAll();
      // 2.5 × 1.5 × 1600 = 6000
      expect((await lastLog(u.id)).quota).toBe(6000n);
    });

    it("cached prompt tokens are billed at the cache ratio", async () => {
      mock.setBehaviour({
        usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 600 } },
      });
      const u = await seedUser();
      await clientFor(u.key).chat.completions.create({ model: "m-ratio", messages: [{ role: "user", content: "hi" }] });
      await settleAll();
      // 2.5 × (400 + 600 × 0.5 + 200 × 3) = 2.5 × 1300 = 3250
      const log = await lastLog(u.id);
      expect(log.quota).toBe(3250n);
      expect(JSON.parse(log.other)).toMatchObject({ cache_tokens: 600, cache_ratio: 0.5 });
    });

    it("per-call pricing: price × 500 000 × group, whatever the usage", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 99999, completion_tokens: 99999, total_tokens: 199998 } });
      const u = await seedUser();
      await clientFor(u.key).chat.completions.create({ model: "m-price", messages: [{ role: "user", content: "hi" }] });
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.quota).toBe(10000n);
      expect(JSON.parse(log.other).model_price).toBe(0.02);
      expect(log.content).toContain("模型价格 0.02");
    });

    it("images: price × size ratio × quality ratio × n", async () => {
      const u = await seedUser();
      await clientFor(u.key).images.generate({ model: "dall-e-3", prompt: "cat", size: "1024x1792", quality: "hd", n: 1 });
      await settleAll();
      // 0.04 × 2 (1024x1792) × 1.5 (hd at a 1792 size) × 500 000 = 60 000
      expect((await lastLog(u.id)).quota).toBe(60000n);
    });

    it("speech: characters × ratio", async () => {
      const u = await seedUser();
      await clientFor(u.key).audio.speech.create({ model: "tts-1", voice: "alloy", input: "Hello there" });
      await settleAll();
      // 11 characters × 7.5 = 82.5 → 83
      expect((await lastLog(u.id)).quota).toBe(83n);
    });

    it("absurd or negative upstream usage never grows anyone's quota", async () => {
      mock.setBehaviour({ absurdUsage: true });
      const u = await seedUser({ quota: 5_000_000 });
      const before = await u.quota();
      await clientFor(u.key)
        .chat.completions.create({ model: "m-flat", messages: [{ role: "user", content: "hi" }] })
        .catch(() => undefined);
      await settleAll();
      const after = await u.quota();
      expect(after).toBeLessThanOrEqual(before);
      expect(after).toBeGreaterThanOrEqual(0n);
      const log = await lastLog(u.id);
      expect(log.quota).toBeGreaterThanOrEqual(0n);
      expect(log.completion_tokens).toBeGreaterThanOrEqual(0);
    });

    it("a client that disconnects mid-stream stops the upstream and pays prompt + what was sent", async () => {
      mock.setBehaviour({ content: Array.from({ length: 60 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 30 });
      const u = await seedUser();
      const controller = new AbortController();
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", stream: true, messages: [{ role: "user", content: "count" }] }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      let text = "";
      // The content delta itself: a bare "w4" also turns up in the mock's random chunk ids (~1 run in 140).
      while (!text.includes('"content":" w4"')) text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await new Promise((r) => setTimeout(r, 300));
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.completion_tokens).toBeGreaterThan(0);
      expect(log.completion_tokens).toBeLessThan(30);
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(JSON.parse(log.other).client_gone).toBe(true);
      // The upstream was cut too: nowhere near all 60 chunks were produced.
      expect(log.quota).toBe(BigInt(log.prompt_tokens + log.completion_tokens));
    });

    it("an upstream error after the first byte becomes an error event, billed for what was delivered", async () => {
      mock.setBehaviour({ content: "alpha beta gamma delta epsilon zeta", errorAfterChunks: 3, omitUsage: true });
      const u = await seedUser();
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", stream: true, messages: [{ role: "user", content: "go" }] }),
      });
      const text = await res.text();
      expect(text).toContain('"error"');
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(text.match(/data: \[DONE\]/g)).toHaveLength(1);
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.completion_tokens).toBe(3);
    });

    it("50 concurrent requests from a user whose balance covers 5 never overdraw", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 90, total_tokens: 100 } });
      // Each request reserves prompt (≈10) + max_tokens 90 at ratio 1: about 100; the balance covers 5.
      const u = await seedUser({ quota: 520 });
      const client = clientFor(u.key);
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, () =>
          client.chat.completions.create({ model: "m-flat", max_tokens: 90, messages: [{ role: "user", content: "hi" }] }),
        ),
      );
      const ok = results.filter((r) => r.status === "fulfilled").length;
      const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      expect(ok).toBeGreaterThanOrEqual(1);
      expect(ok).toBeLessThanOrEqual(5);
      expect(refused.every((r) => (r.reason as { status?: number }).status === 403)).toBe(true);
      await settleAll();
      const after = await u.quota();
      expect(after).toBeGreaterThanOrEqual(0n);
      const spent = (await (await getDb()).log.aggregate({ where: { user_id: u.id, type: 2 }, _sum: { quota: true } }))._sum.quota ?? 0n;
      expect(520n - after).toBe(spent);
      expect(await (await getDb()).quotaHold.count({ where: { user_id: u.id, state: 0 } })).toBe(0);
    });

    it("with LogConsumeEnabled off, charges and counts the request but writes no consume row", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
      await updateOption("LogConsumeEnabled", "false");
      try {
        const u = await seedUser();
        const before = await u.quota();
        await clientFor(u.key).chat.completions.create({ model: "m-flat", messages: [{ role: "user", content: "hi" }] });
        await settleAll();
        expect(before - (await u.quota())).toBe(20n);
        const db = await getDb();
        expect(await db.log.count({ where: { user_id: u.id } })).toBe(0);
        const row = await db.user.findUniqueOrThrow({ where: { id: u.id } });
        expect(row.used_quota).toBe(20n);
        expect(row.request_count).toBe(1);
      } finally {
        await updateOption("LogConsumeEnabled", "true");
      }
    });

    it("the playground spends the user's balance through the session, without a key", async () => {
      const { sessionCookieFor } = await import("@/tests/helpers/api");
      mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
      const u = await seedUser();
      const before = await u.quota();
      const cookie = await sessionCookieFor(u.id);
      const noHeader = await fetch(`${relay.url}/pg/chat/completions`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(noHeader.status).toBe(401);
      const res = await fetch(`${relay.url}/pg/chat/completions`, {
        method: "POST",
        headers: { cookie, "new-api-user": String(u.id), "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("data: [DONE]");
      await settleAll();
      const log = await lastLog(u.id);
      expect(log.token_name).toBe("playground-default");
      expect(before - (await u.quota())).toBe(20n);
    });
  });
}
