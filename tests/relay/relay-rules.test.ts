// Key checks, routing, failover, auto-disable and mappings, through both relay entries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { publishInvalidation } from "@/lib/cache/bus";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import type { RelayRequest } from "@/lib/relay/http";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const chat = (c: OpenAI, model = MODEL) => c.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

async function errorOf(p: Promise<unknown>): Promise<{ status: number; message: string; code: unknown; type: unknown }> {
  try {
    await p;
  } catch (e) {
    const err = e as InstanceType<typeof OpenAI.APIError>;
    return { status: err.status as number, message: err.message, code: err.code, type: err.type };
  }
  throw new Error("expected the call to fail");
}

for (const entry of ENTRIES) {
  describe(`relay rules through the ${entry} entry`, () => {
    let a: OpenAIMock;
    let b: OpenAIMock;
    let relay: RelayServer;
    const clientFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 });

    beforeAll(async () => {
      a = await startOpenAIMock();
      b = await startOpenAIMock();
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await a.close();
      await b.close();
      await updateOption("RetryTimes", "0");
      await updateOption("AutomaticDisableChannelEnabled", "false");
    });
    beforeEach(async () => {
      a.reset();
      b.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
    });

    describe("key checks", () => {
      beforeEach(async () => {
        await seedChannel({ base_url: a.url, models: MODEL });
      });

      it("rejects a missing, malformed or unknown key with 401 and shows at most a masked key", async () => {
        const noKey = await fetch(`${relay.url}/v1/chat/completions`, { method: "POST", body: "{}" });
        expect(noKey.status).toBe(401);
        const unknownKey = `sk-${"A".repeat(48)}`;
        const unknown = await errorOf(chat(clientFor(unknownKey)));
        expect(unknown.status).toBe(401);
        expect(unknown.message).not.toContain("A".repeat(20));
        expect(unknown.message).toContain("sk-AAAA****AAAA");
        expect((await errorOf(chat(clientFor("sk-short")))).status).toBe(401);
        expect(a.requests).toHaveLength(0);
      });

      it("rejects disabled, expired and exhausted keys", async () => {
        const db = await getDb();
        const disabled = await seedUser();
        await db.token.update({ where: { id: disabled.tokenId }, data: { status: 2 } });
        const expired = await seedUser();
        await db.token.update({ where: { id: expired.tokenId }, data: { expired_time: 1000 } });
        const exhausted = await seedUser({ token: { unlimited_quota: false, remain_quota: 0 } });
        publishInvalidation({ kind: "token", id: disabled.tokenId });
        publishInvalidation({ kind: "token", id: expired.tokenId });
        expect((await errorOf(chat(clientFor(disabled.key)))).message).toContain("该令牌状态不可用");
        expect((await errorOf(chat(clientFor(expired.key)))).message).toContain("该令牌已过期");
        const ex = await errorOf(chat(clientFor(exhausted.key)));
        expect(ex.status).toBe(401);
        expect(ex.message).toContain("该令牌额度已用尽");
      });

      it("a key disabled while cached stops working at once", async () => {
        const u = await seedUser();
        await chat(clientFor(u.key));
        const { updateToken } = await import("@/lib/tokens/manage");
        const { setTokenStatus } = await import("@/lib/tokens/manage");
        void updateToken;
        await setTokenStatus({ id: u.id, group: "default" }, u.tokenId, 2);
        expect((await errorOf(chat(clientFor(u.key)))).status).toBe(401);
      });

      it("refuses a banned user with 403", async () => {
        const u = await seedUser();
        await (await getDb()).user.update({ where: { id: u.id }, data: { status: 2 } });
        publishInvalidation({ kind: "user", id: u.id });
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(403);
        expect(e.message).toContain("用户已被封禁");
      });

      it("enforces model limits on the requested model", async () => {
        const u = await seedUser({ token: { model_limits_enabled: true, model_limits: "gpt-4o" } });
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(403);
        expect(e.message).toContain(`该令牌无权访问模型 ${MODEL}`);
      });

      it("enforces the IP allow-list with exact IPs and CIDRs", async () => {
        const denied = await seedUser({ token: { allow_ips: "10.0.0.1\n192.168.0.0/16" } });
        const e = await errorOf(chat(clientFor(denied.key)));
        expect(e.status).toBe(403);
        const allowed = await seedUser({ token: { allow_ips: "10.0.0.1\n127.0.0.0/8" } });
        await expect(chat(clientFor(allowed.key))).resolves.toBeTruthy();
      });

      it("answers quota shortfall with 403 insufficient_user_quota, not 429, and charges nothing", async () => {
        const poor = await seedUser({ quota: 1 });
        const e = await errorOf(chat(clientFor(poor.key)));
        expect(e.status).toBe(403);
        expect(e.code).toBe("insufficient_user_quota");
        expect(await poor.quota()).toBe(1n);
        expect(a.requests).toHaveLength(0);
      });

      it("refuses a token group the user may not use", async () => {
        const u = await seedUser();
        await (await getDb()).token.update({ where: { id: u.tokenId }, data: { group: "secret-group" } });
        publishInvalidation({ kind: "token", id: u.tokenId });
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(403);
        expect(e.message).toContain("secret-group");
      });

      it("answers for a key already in memory without a promise, with the same result", async () => {
        const { authenticateKey } = await import("@/lib/relay/memory/key-auth");
        const u = await seedUser();
        const requestWith = (authorization: string) =>
          ({
            method: "POST",
            path: "/v1/chat/completions",
            headers: { get: (name: string) => (name === "authorization" ? authorization : null) },
            body: new Uint8Array(),
            clientIp: "127.0.0.1",
            query: new URLSearchParams(),
            gone: false,
            onGone: () => () => undefined,
          }) as unknown as RelayRequest;
        const first = authenticateKey(requestWith(`Bearer ${u.key}`));
        expect(first).toBeInstanceOf(Promise); // read from the database
        const caller = await first;
        const second = authenticateKey(requestWith(`Bearer ${u.key}`));
        expect(second).not.toBeInstanceOf(Promise);
        expect(second).toEqual(caller);
        expect((second as typeof caller).user.id).toBe(u.id);
        // A malformed key fails at once, before any lookup.
        expect(() => authenticateKey(requestWith("Bearer sk-short"))).toThrow("无效的令牌");
      });

      it("lets only admins pin a channel with sk-KEY-<id>", async () => {
        const ch = await seedChannel({ base_url: b.url, models: MODEL });
        const user = await seedUser();
        expect((await errorOf(chat(clientFor(`${user.key}-${ch.id}`)))).message).toContain("普通用户不支持指定渠道");
        const admin = await seedUser({ role: 10 });
        await chat(clientFor(`${admin.key}-${ch.id}`));
        expect(b.requests).toHaveLength(1);
        expect(a.requests).toHaveLength(0);
      });

      it("says which group and model have no channel", async () => {
        const u = await seedUser();
        const e = await errorOf(chat(clientFor(u.key), "no-such-model"));
        expect(e.status).toBe(404);
        expect(e.message).toContain("no-such-model");
      });

      it("rejects a body that is not JSON with a clean 400 and moves no quota", async () => {
        const u = await seedUser();
        const before = await u.quota();
        const res = await fetch(`${relay.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
          body: "{oops",
        });
        expect(res.status).toBe(400);
        expect((await res.json()).error.message).toContain("JSON");
        await settleAll();
        expect(await u.quota()).toBe(before);
      });
    });

    describe("routing and failover", () => {
      it("prefers the higher priority tier", async () => {
        await seedChannel({ base_url: a.url, models: MODEL, priority: 10 });
        await seedChannel({ base_url: b.url, models: MODEL, priority: 0 });
        const u = await seedUser();
        for (let i = 0; i < 5; i++) await chat(clientFor(u.key));
        expect(a.requests).toHaveLength(5);
        expect(b.requests).toHaveLength(0);
      });

      it("retries a retriable failure on another channel and records both", async () => {
        await updateOption("RetryTimes", "2");
        const first = await seedChannel({ base_url: a.url, models: MODEL, priority: 10 });
        const second = await seedChannel({ base_url: b.url, models: MODEL, priority: 0 });
        a.setBehaviour({ failStatus: 500 });
        const u = await seedUser();
        const res = await chat(clientFor(u.key));
        expect(res.choices[0]!.message.content).toBeTruthy();
        expect(a.requests).toHaveLength(1);
        expect(b.requests).toHaveLength(1);
        await settleAll();
        const log = await (await getDb()).log.findFirstOrThrow({ where: { user_id: u.id, type: 2 } });
        expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(first.id), String(second.id)]);
        expect(log.channel_id).toBe(second.id);
      });

      it("does not retry a non-retriable failure, refunds everything and logs the error", async () => {
        await updateOption("RetryTimes", "2");
        await seedChannel({ base_url: a.url, models: MODEL, priority: 10 });
        await seedChannel({ base_url: b.url, models: MODEL, priority: 0 });
        a.setBehaviour({ failStatus: 400, failError: { message: "bad input from client" } });
        const u = await seedUser();
        const before = await u.quota();
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(400);
        expect(e.message).toContain("bad input from client");
        expect(e.message).toMatch(/request id: \w+/);
        expect(b.requests).toHaveLength(0);
        await settleAll();
        expect(await u.quota()).toBe(before);
        const err = await (await getDb()).log.findFirstOrThrow({ where: { user_id: u.id, type: 5 } });
        expect(err.quota).toBe(0n);
      });

      it("applies status_code_mapping to what the client sees and to the retry decision", async () => {
        await updateOption("RetryTimes", "1");
        await seedChannel({ base_url: a.url, models: MODEL, priority: 10, status_code_mapping: '{"400":"500"}' });
        await seedChannel({ base_url: b.url, models: MODEL, priority: 0 });
        a.setBehaviour({ failStatus: 400 });
        const u = await seedUser();
        await chat(clientFor(u.key));
        expect(b.requests).toHaveLength(1);
        await updateOption("RetryTimes", "0");
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(500);
      });

      it("rewrites the upstream model with model_mapping and bills the requested model", async () => {
        await seedChannel({ base_url: a.url, models: MODEL, model_mapping: `{"${MODEL}":"upstream-mini"}` });
        const u = await seedUser();
        await chat(clientFor(u.key));
        expect((a.requests[0]!.json as { model: string }).model).toBe("upstream-mini");
        await settleAll();
        const log = await (await getDb()).log.findFirstOrThrow({ where: { user_id: u.id, type: 2 } });
        expect(log.model_name).toBe(MODEL);
        expect(JSON.parse(log.other)).toMatchObject({ is_model_mapped: true, upstream_model_name: "upstream-mini" });
      });

      it("auto-disables a channel whose key is dead, with the reason and time", async () => {
        await updateOption("AutomaticDisableChannelEnabled", "true");
        const dead = await seedChannel({ base_url: a.url, models: MODEL });
        a.setBehaviour({ failStatus: 401 });
        const u = await seedUser();
        expect((await errorOf(chat(clientFor(u.key)))).status).toBe(401);
        const db = await getDb();
        await expect.poll(async () => (await db.channel.findUniqueOrThrow({ where: { id: dead.id } })).status).toBe(3);
        const row = await db.channel.findUniqueOrThrow({ where: { id: dead.id } });
        const info = JSON.parse(row.other_info);
        expect(info.status_reason).toContain("401");
        expect(info.status_time).toBeGreaterThan(0);
        // Disabled channels are no longer chosen.
        const e = await errorOf(chat(clientFor(u.key)));
        expect(e.status).toBe(404);
        await updateOption("AutomaticDisableChannelEnabled", "false");
      });

      it("leaves a channel alone when auto_ban is off", async () => {
        await updateOption("AutomaticDisableChannelEnabled", "true");
        const ch = await seedChannel({ base_url: a.url, models: MODEL, auto_ban: 0 });
        a.setBehaviour({ failStatus: 401 });
        const u = await seedUser();
        await errorOf(chat(clientFor(u.key)));
        await new Promise((r) => setTimeout(r, 100));
        expect((await (await getDb()).channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(1);
        await updateOption("AutomaticDisableChannelEnabled", "false");
      });
    });
  });
}
