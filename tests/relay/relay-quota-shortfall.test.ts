// A request too big for what is left is refused alone (issue 20.1): the next one that fits is
// served, on the key side and the user side, in the caller's protocol. A key whose quota is really
// spent is refused exactly when the token list shows it 已耗尽.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { listTokens } from "@/lib/tokens/manage";
import { TOKEN_STATUS } from "@/lib/tokens/status";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

for (const entry of ENTRIES) {
  describe(`a quota shortfall through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;

    const chat = (key: string, maxTokens: number) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", max_tokens: maxTokens, messages: [{ role: "user", content: "hi" }] }),
      });
    const listed = async (userId: number, tokenId: number) => {
      const page = await listTokens({ id: userId, group: "default" } as never, { p: 0, page_size: 10 } as never);
      return page.items.find((t) => t.id === tokenId)!;
    };

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ "m-flat": 1 }));
      await updateOption("CompletionRatio", JSON.stringify({ "m-flat": 1 }));
      await updateOption("GroupRatio", JSON.stringify({ default: 1 }));
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      mock.setBehaviour({ usage: { prompt_tokens: 8, completion_tokens: 9, total_tokens: 17 } });
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: "m-flat" });
    });

    it("a key with 100 000 refuses the request that needs more, then serves a small one", async () => {
      const u = await seedUser({ token: { unlimited_quota: false, remain_quota: 100_000 } });
      const big = await chat(u.key, 200_000);
      expect(big.status).toBe(403);
      const refusal = await big.json();
      expect(refusal.error).toMatchObject({ type: "insufficient_user_quota", code: "insufficient_token_quota" });
      expect(refusal.error.message).toContain("令牌额度不足");
      expect(mock.requests).toHaveLength(0);
      // The list still shows the key enabled with its quota: nothing was spent.
      expect(await listed(u.id, u.tokenId)).toMatchObject({ status: TOKEN_STATUS.enabled, remain_quota: 100_000 });

      const small = await chat(u.key, 10);
      expect(small.status).toBe(200);
      expect((await chat(u.key, 10)).status).toBe(200);
      expect(mock.requests).toHaveLength(2);
    });

    it("a user with 100 000 refuses the request that needs more, then serves a small one (unlimited key)", async () => {
      const u = await seedUser({ quota: 100_000 });
      const big = await chat(u.key, 200_000);
      expect(big.status).toBe(403);
      expect((await big.json()).error).toMatchObject({ type: "insufficient_user_quota", code: "insufficient_user_quota" });
      expect(mock.requests).toHaveLength(0);
      expect((await chat(u.key, 10)).status).toBe(200);
      expect((await chat(u.key, 10)).status).toBe(200);
      await settleAll();
      expect(await u.quota()).toBe(100_000n - 2n * 17n);
    });

    it("an Anthropic caller gets the refusal in Anthropic's shape, then is served", async () => {
      const u = await seedUser({ token: { unlimited_quota: false, remain_quota: 100_000 } });
      const messages = (maxTokens: number) =>
        fetch(`${relay.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": u.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
          body: JSON.stringify({ model: "m-flat", max_tokens: maxTokens, messages: [{ role: "user", content: "hi" }] }),
        });
      const big = await messages(200_000);
      expect(big.status).toBe(403);
      const refusal = await big.json();
      expect(refusal.type).toBe("error");
      expect(refusal.error.type).toBe("permission_error");
      expect(refusal.error.message).toContain("令牌额度不足");
      const small = await messages(10);
      expect(small.status).toBe(200);
      expect((await small.json()).type).toBe("message");
    });

    it("a key really spent is refused as spent exactly when the list shows it 已耗尽", async () => {
      // No max_tokens: 500 reserved; the upstream reports 5 000 used, which the key pays below zero.
      mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 5_000, total_tokens: 5_010 } });
      const u = await seedUser({ token: { unlimited_quota: false, remain_quota: 1_000 } });
      const first = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(first.status).toBe(200);
      await settleAll();
      expect(await listed(u.id, u.tokenId)).toMatchObject({ status: TOKEN_STATUS.exhausted, remain_quota: 1_000 - 5_010 });
      for (let i = 0; i < 2; i++) {
        const next = await chat(u.key, 10);
        expect(next.status).toBe(401);
        expect((await next.json()).error.message).toContain("该令牌额度已用尽");
      }
      expect(mock.requests).toHaveLength(1);
      // Quota given back: the list and the relay agree again at once.
      const db = await getDb();
      await db.token.update({ where: { id: u.tokenId }, data: { remain_quota: 100_000n } });
      const { publishInvalidation } = await import("@/lib/cache/bus");
      publishInvalidation({ kind: "token", id: u.tokenId, keyHash: "" });
      expect((await listed(u.id, u.tokenId)).status).toBe(TOKEN_STATUS.enabled);
      expect((await chat(u.key, 10)).status).toBe(200);
    });
  });
}
