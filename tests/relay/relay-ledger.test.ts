// The money path end to end (ISSUE 9, items 2, 6, 7 and the shutdown part of 14): long streams
// are charged, `n` is reserved for, overruns are charged in full, balances shown move by usage
// and never by a lease, and streams cut by a shutdown are billed for what they delivered.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { getDirectDb } from "@/lib/db/direct";
import { updateOption } from "@/lib/options";
import { DEFAULT_LEDGER_OPTIONS, recoverHolds } from "@/lib/billing/ledger";
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";
import { getLedger } from "@/lib/relay/memory/runtime";
import * as selfRoute from "@/app/api/user/self/route";
import * as usersRoute from "@/app/api/user/route";
import * as userSearchRoute from "@/app/api/user/search/route";
import * as userRoute from "@/app/api/user/[id]/route";
import * as tokensRoute from "@/app/api/token/route";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function lastLog(userId: number) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });
}

describe("the relay's money path", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;

  const chat = (key: string, body: Record<string, unknown>) =>
    fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
    });

  beforeAll(async () => {
    mock = await startOpenAIMock();
    relay = await startRelay("node");
    // The built-in ratios, plus test models at ratio 1 (completion ratio 1) and one per call ($0.02 = 10 000).
    await updateOption("ModelRatio", JSON.stringify({ ...DEFAULT_MODEL_RATIO, "m-flat": 1 }));
    await updateOption("ModelPrice", JSON.stringify({ "m-price": 0.02 }));
    await updateOption("DisplayInCurrencyEnabled", "false");
  });
  afterAll(async () => {
    await settleAll();
    await relay.close();
    await mock.close();
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: "m-flat,m-price,gpt-4.5-preview" });
  });

  it("charges a stream that runs longer than the stale limit, though recovery runs meanwhile", async () => {
    // Holds are stale after 2 s without a refresh and idle after 1 s; the stream takes ~6 s.
    await settleAll();
    await getLedger({ ...DEFAULT_LEDGER_OPTIONS, staleSeconds: 2, idleSeconds: 1 });
    mock.setBehaviour({
      content: Array.from({ length: 60 }, (_, i) => `w${i}`).join(" "),
      chunkDelayMs: 100,
      usage: { prompt_tokens: 10, completion_tokens: 60, total_tokens: 70 },
    });
    const u = await seedUser({ quota: 1_000_000 });
    const res = await chat(u.key, { model: "m-flat", stream: true });
    const body = res.text();
    await sleep(3_500);
    await recoverHolds(await getDirectDb(), 2); // the master's sweep, while the stream still runs
    expect(await body).toContain("data: [DONE]");
    await settleAll();
    expect((await lastLog(u.id)).quota).toBe(70n);
    expect(1_000_000n - (await u.quota())).toBe(70n);
  });

  it("reserves for every choice of `n`: n = 128 on a small balance is refused before the upstream", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    const u = await seedUser({ quota: 20_000 });
    // 128 choices × 500 completion tokens (no max_tokens) at ratio 1: 64 000 > 20 000.
    const many = await chat(u.key, { model: "m-flat", n: 128 });
    expect(many.status).toBe(403);
    expect((await many.json()).error.code).toBe("insufficient_user_quota");
    expect(mock.requests).toHaveLength(0);
    expect((await chat(u.key, { model: "m-flat", n: 2 })).status).toBe(200);
  });

  it("charges usage beyond the reservation in full, below zero, then refuses the user", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 5_000, total_tokens: 5_010 } });
    const u = await seedUser({ quota: 1_000 });
    expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    await settleAll();
    expect((await lastLog(u.id)).quota).toBe(5_010n);
    expect(await u.quota()).toBe(1_000n - 5_010n);
    const next = await chat(u.key, { model: "m-flat" });
    expect(next.status).toBe(403);
    expect((await next.json()).error.code).toBe("insufficient_user_quota");
    expect(mock.requests).toHaveLength(1);
  });

  it("charges a limited key's overrun to its remaining quota too, then refuses the key", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 5_000, total_tokens: 5_010 } });
    const u = await seedUser({ quota: 10_000_000, token: { unlimited_quota: false, remain_quota: 1_000 } });
    expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    await settleAll();
    const token = await (await getDb()).token.findUniqueOrThrow({ where: { id: u.tokenId } });
    expect(token.remain_quota).toBe(1_000n - 5_010n);
    expect(token.used_quota).toBe(5_010n);
    expect(await u.quota()).toBe(10_000_000n - 5_010n);
    const next = await chat(u.key, { model: "m-flat" });
    expect(next.status).toBeGreaterThanOrEqual(400);
    expect(mock.requests).toHaveLength(1);
  });

  it("lets a 'hi' chat through on a key and a user with 100 000 units, even on the dearest built-in model", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 8, completion_tokens: 9, total_tokens: 17 } });
    const u = await seedUser({ quota: 100_000, token: { unlimited_quota: false, remain_quota: 100_000 } });
    const res = await chat(u.key, { model: "gpt-4.5-preview" });
    expect(res.status).toBe(200);
  });

  it("shows balances lowered by what was spent plus what is in flight, never by the lease", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    const u = await seedUser({ quota: 1_000_000, token: { unlimited_quota: false, remain_quota: 500_000 } });
    const admin = await createUser({ username: `root${Date.now().toString(36)}`, role: 100 });
    const owner = { id: u.id, cookie: await sessionCookieFor(u.id) };
    for (let i = 0; i < 3; i++) expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    const ledger = await getLedger();
    const db = await getDb();
    const shown = async () => {
      await new Promise((r) => setImmediate(r)); // the last answer settles right after it is written
      await ledger.flush();
      const self = await call(selfRoute.GET, "GET", "/api/user/self", { as: owner });
      const detail = await call(userRoute.GET, "GET", `/api/user/${u.id}`, { as: admin, params: { id: String(u.id) } });
      const list = await call(usersRoute.GET, "GET", "/api/user/?p=0&page_size=100", { as: admin });
      const search = await call(userSearchRoute.GET, "GET", `/api/user/search?keyword=${u.username}`, { as: admin });
      const tokens = await call(tokensRoute.GET, "GET", "/api/token/", { as: owner });
      const billing = await fetch(`${relay.url}/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${u.key}` } });
      const mine = (items: { id: number; quota: number }[]) => items.find((x) => x.id === u.id)!.quota;
      return {
        self: self.json.data.quota,
        detail: detail.json.data.quota,
        list: mine(list.json.data.items),
        search: mine(search.json.data.items),
        token: tokens.json.data.items.find((t: { id: number }) => t.id === u.tokenId).remain_quota,
        subscription: (await billing.json()).hard_limit_usd,
      };
    };
    // A lease is out (the stored balance is far lower), but only 3 × 20 was spent.
    expect(await u.quota()).toBeLessThan(1_000_000n - 100_000n);
    expect(await db.quotaHold.count({ where: { user_id: u.id, state: 0 } })).toBe(1);
    const spent = { self: 1_000_000 - 60, detail: 1_000_000 - 60, list: 1_000_000 - 60, search: 1_000_000 - 60, token: 500_000 - 60 };
    expect(await shown()).toEqual({ ...spent, subscription: 500_000 });

    // A per-call request in flight (10 000 reserved) shows while it runs.
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }, stallAfterHeadersMs: 1_500 });
    const pending = chat(u.key, { model: "m-price", stream: true }).then((r) => r.text());
    await expect.poll(() => mock.requests.length).toBe(4);
    const inFlight = await shown();
    expect(inFlight).toEqual({
      self: spent.self - 10_000,
      detail: spent.detail - 10_000,
      list: spent.list - 10_000,
      search: spent.search - 10_000,
      token: spent.token - 10_000,
      subscription: 500_000 - 10_000,
    });
    await pending;
    expect(await shown()).toEqual({
      self: spent.self - 10_000,
      detail: spent.detail - 10_000,
      list: spent.list - 10_000,
      search: spent.search - 10_000,
      token: spent.token - 10_000,
      subscription: 500_000,
    });
    expect(await db.quotaHold.count({ where: { user_id: u.id, state: 0 } })).toBe(1); // the lease is still open
  });

  it("applies a key's remaining quota and a user's balance, edited while a lease is out, as set", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    const u = await seedUser({ quota: 1_000_000, token: { unlimited_quota: false, remain_quota: 500_000 } });
    const admin = await createUser({ username: `admin${Date.now().toString(36)}`, role: 100 });
    const owner = { id: u.id, cookie: await sessionCookieFor(u.id) };
    expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    await new Promise((r) => setImmediate(r));
    await (await getLedger()).flush();
    expect(await (await getDb()).quotaHold.count({ where: { user_id: u.id, state: 0 } })).toBe(1); // the lease
    const token = await call(tokensRoute.PUT, "PUT", "/api/token/", { as: owner, body: { id: u.tokenId, remain_quota: 300_000 } });
    expect(token.json).toMatchObject({ success: true, data: { remain_quota: 300_000 } });
    const user = await call(usersRoute.PUT, "PUT", "/api/user/", { as: admin, body: { id: u.id, quota: 2_000_000 } });
    expect(user.json).toMatchObject({ success: true, data: { quota: 2_000_000 } });
    // The lease is returned: the values stay what was set, not that plus the lease's unused part.
    await settleAll();
    const db = await getDb();
    expect((await db.token.findUniqueOrThrow({ where: { id: u.tokenId } })).remain_quota).toBe(300_000n);
    expect(await u.quota()).toBe(2_000_000n);
  });
});

describe("a relay process stopped while a stream runs", () => {
  let mock: OpenAIMock;
  beforeAll(async () => {
    mock = await startOpenAIMock();
  });
  afterAll(async () => {
    await mock.close();
  });

  it("ends the stream, bills what it delivered and returns the rest of the hold before exiting", async () => {
    await updateOption("ModelRatio", JSON.stringify({ ...DEFAULT_MODEL_RATIO, "m-flat": 1 }));
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: "m-flat" });
    mock.setBehaviour({ content: Array.from({ length: 100 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 50, omitUsage: true });
    const u = await seedUser({ quota: 1_000_000 });
    const relay = await startRelayProcess({});
    try {
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-flat", stream: true, messages: [{ role: "user", content: "count" }] }),
      });
      const reader = res.body!.getReader();
      let text = "";
      // The content delta itself: a bare "w5" also turns up in the mock's random chunk ids (~1 run in 140).
      while (!text.includes('"content":" w5"')) text += new TextDecoder().decode((await reader.read()).value);
      const stopped = relay.stop(); // SIGTERM: the process writes usage and exits
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await stopped;
      expect(text).toContain("server_shutdown");
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    } finally {
      if (relay.child.exitCode === null) await relay.kill();
    }
    const log = await lastLog(u.id);
    expect(log.completion_tokens).toBeGreaterThan(5);
    expect(log.completion_tokens).toBeLessThan(100);
    expect(JSON.parse(log.other).stream_end).toBe("shutdown");
    expect(1_000_000n - (await u.quota())).toBe(log.quota);
    expect(await (await getDb()).quotaHold.count({ where: { user_id: u.id, state: 0 } })).toBe(0);
  });
});
