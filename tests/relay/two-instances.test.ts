// Two real `npm start` servers on one PostgreSQL and one Redis, driven at once (issue 27): A
// (NODE_TYPE=master) migrates the empty database and creates root; B (NODE_TYPE=slave) starts
// after. Concurrent relay calls of one user over both never overdraw; one redemption code
// credits once; a model price, a channel, a key or a user changed through A is used by B within a
// second (through Redis: SYNC_FREQUENCY is an hour here); a session ended on A is refused by B;
// a user's request limit counts the calls of both; a third instance without Redis
// (SYNC_FREQUENCY=1) sees a change made on A within that second; B cut from Redis goes on and
// says so, and once back uses what it missed; the periodic jobs (channel test, task poller, hold
// sweep, log retention) run each round on one instance (leases).
// @main-database none (its PostgreSQL and Redis are named; scripts/database-tests.mjs).
import net from "node:net";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { encodeSession } from "@/lib/auth/session";
import { createSessionRow } from "@/lib/auth/sessions";
import { ROLE } from "@/lib/auth/roles";
import { generateRedemptionKey, hashRedemptionKey, redemptionKeyHint } from "@/lib/redemptions/keys";
import { TEST_LOG_TOKEN_NAME } from "@/lib/relay/probe/test";
import { TASK_POLL_LEASE_KEY, POLL_INTERVAL_MS } from "@/lib/tasks/poller";
import { CHANNEL_TEST_LEASE_KEY } from "@/lib/relay/probe/schedule";
import { HOLD_SWEEP_LEASE_KEY } from "@/lib/relay/memory/runtime";
import { LOG_RETENTION_LEASE_KEY } from "@/lib/logs/retention";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { freePort, killServer, type Server, startServer } from "@/tests/helpers/instance";
import { testRedisUrl } from "@/tests/helpers/redis";

/** Redis database 10 (11 in the PostgreSQL pass, tests/helpers/redis.ts): this test's keys stay apart from the others' (pub/sub is server-wide; events carry their origin). */
const REDIS = testRedisUrl(10);
/** A call of m-call costs exactly this (ModelPrice 0.002 × QuotaPerUnit 500 000). */
const CALL_PRICE = 1000n;
const AFFORDABLE_CALLS = 4;
/** A change must be used by the other instance within this (the bound). */
const WITHIN_MS = 1000;
const HOLD_AMOUNT = 7000n;
const HOLD_CONSUMED = 2000n;

type Signed = { id: number; cookie: string; jti: string };
type Answer = { status: number; json: { success?: boolean; message?: string; data?: unknown; error?: Record<string, unknown> } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long until `check` holds (polled every 20 ms); throws past `limitMs`. */
async function msUntil(check: () => Promise<boolean>, limitMs = 10_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await sleep(20);
  }
}

/** A TCP relay to Redis that the test can cut (every connection dropped, new ones refused) and restore. */
async function redisLink() {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(6379, "127.0.0.1");
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", resolve);
    });
  await listen();
  return {
    url: testRedisUrl(10, port),
    async cut() {
      const closed = new Promise((r) => server!.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: listen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => (server?.listening ? server.close(r) : r(undefined)));
    },
  };
}

/** A console call as the signed-in `as` (cookie and New-Api-User, as the console sends them). */
async function api(s: Server, as: Signed, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { cookie: as.cookie, "new-api-user": String(as.id), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch(() => ({})) };
}

async function chat(s: Server, key: string, model: string): Promise<Answer> {
  const res = await fetch(`${s.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: res.status, json: await res.json().catch(() => ({})) };
}

/** The models `key` may call on `s` (GET /v1/models), or the status when it is refused. */
async function models(s: Server, key: string): Promise<string[] | number> {
  const res = await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) return res.status;
  return ((await res.json()).data as { id: string }[]).map((m) => m.id).sort();
}

describe("two instances of npm start on one PostgreSQL and Redis", () => {
  let t: TestDatabase;
  let mock: OpenAIMock;
  let a: Server | undefined;
  let b: Server | undefined;
  let c: Server | undefined;
  /** B reaches Redis through it, so that the test can take Redis away from B alone. */
  let link: Awaited<ReturnType<typeof redisLink>>;
  let aStartedAt = 0;
  /** When the last instance answered: every console's first retention check is a minute after its start. */
  let lastReadyAt = 0;
  let root: Signed;

  const user = async (username: string, quota: bigint, role: number = ROLE.user) =>
    t.db.user.create({ data: { username, password: "x", quota, role } });
  const key = async (userId: number) => {
    const k = generateTokenKey();
    const row = await t.db.token.create({
      data: {
        user_id: userId,
        key_hash: hashTokenKey(k),
        key_enc: seal(k),
        key_hint: tokenKeyHint(k),
        name: "k",
        remain_quota: 0n,
        unlimited_quota: true,
        expired_time: -1,
      },
    });
    return { id: row.id, key: `sk-${k}` };
  };
  const channel = async (name: string, served: string) => {
    const row = await t.db.channel.create({
      data: { type: 1, name, key: seal("sk-up"), base_url: mock.url, models: served, group: "default" },
    });
    await t.db.ability.createMany({
      data: abilityRowsFor({ id: row.id, models: served, group: "default", priority: 0, weight: 0, status: 1 }),
    });
    return row.id;
  };
  /** Signs `userId` in (a session row and its cookie, as a sign-in on any instance makes). */
  const signIn = async (userId: number): Promise<Signed> => {
    const u = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    const jti = await createSessionRow(new Headers({ "user-agent": "two-instances" }), u.id, "password", { db: t.direct });
    const value = await encodeSession({ id: u.id, username: u.username, role: u.role, ver: u.auth_version, jti });
    return { id: u.id, cookie: `qiao_session=${value}`, jti };
  };
  const setOption = async (key: string, value: string) => {
    const res = await api(a!, root, "PUT", "/api/option/", { key, value });
    expect(res.json, `${key}: ${res.json.message}`).toMatchObject({ success: true });
  };

  /** Both instances: the same database, Redis, secrets; the periodic reload an hour away, so only Redis can carry a change. */
  const shared = () => ({
    SQL_DSN: t.dsn,
    REDIS_CONN_STRING: REDIS,
    SYNC_FREQUENCY: "3600",
    SESSION_SECRET: process.env.SESSION_SECRET ?? "",
    CRYPTO_SECRET: process.env.CRYPTO_SECRET ?? "",
  });

  let payer: { id: number; key: string };
  let holder: { id: number; quota: bigint };
  let watcher: { userId: number; key: string; tokenId: number; spareKey: string };
  let gone: number;

  beforeAll(async () => {
    // Database 11 is this test's alone: a run a minute ago left its users' request logs there.
    const redis = await createClient({ url: REDIS }).connect();
    await redis.flushDb();
    await redis.quit();
    t = await createTestDatabase("postgresql", { migrate: false });
    mock = await startOpenAIMock({ behaviour: { usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } } });
    aStartedAt = Math.floor(Date.now() / 1000);
    a = await startServer(t, { ...shared(), NODE_TYPE: "master" });
    // A migrated the empty database and created root.
    const rootRow = await t.db.user.findFirstOrThrow({ where: { role: ROLE.root } });
    root = await signIn(rootRow.id);

    await channel("paid", "m-call");
    gone = await channel("watched", "m-gone,m-new");
    const p = await user("payer", CALL_PRICE * BigInt(AFFORDABLE_CALLS));
    payer = { id: p.id, key: (await key(p.id)).key };
    const w = await user("watcher", 10_000_000n);
    const wk = await key(w.id);
    watcher = { userId: w.id, key: wk.key, tokenId: wk.id, spareKey: (await key(w.id)).key };
    // A hold an instance that died left open: 7000 taken from the user, 2000 of it spent.
    const h = await user("orphan", 10_000n);
    holder = { id: h.id, quota: 10_000n };
    await t.db.quotaHold.create({
      data: { id: "orphan-hold", user_id: h.id, amount: HOLD_AMOUNT, consumed: HOLD_CONSUMED, created_at: 1, updated_at: 1 },
    });
    // Through A's console, as an admin would: published to A's processes (and Redis).
    await setOption("ModelPrice", JSON.stringify({ "m-call": 0.002 }));
    await setOption("ModelRatio", JSON.stringify({ "m-gone": 1 }));
    await setOption("ChannelTestInterval", "1");
    // A system log row three days old, and system logs kept one day: the first retention check
    // (a minute after each console starts) deletes it, on the instance that takes the day's lease.
    await setOption("LogRetentionSystemDays", "1");
    await t.db.log.create({
      data: {
        user_id: rootRow.id,
        username: rootRow.username,
        type: 4,
        content: "old",
        created_at: Math.floor(Date.now() / 1000) - 3 * 86_400,
      },
    });

    link = await redisLink();
    b = await startServer(t, { ...shared(), NODE_TYPE: "slave", REDIS_CONN_STRING: link.url });
    // A third instance without Redis: it learns of changes by reloading every SYNC_FREQUENCY seconds.
    c = await startServer(t, { ...shared(), NODE_TYPE: "slave", REDIS_CONN_STRING: "", SYNC_FREQUENCY: "1" });
    lastReadyAt = Date.now();
  }, 600_000);

  afterAll(async () => {
    await Promise.all([killServer(a), killServer(b), killServer(c)]);
    await link?.close();
    await mock?.close();
    await t?.drop();
  });

  it("both are ready and share Redis", async () => {
    for (const s of [a!, b!]) {
      const res = await fetch(`${s.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: "ready",
        checks: { database: { ok: true }, migrations: { ok: true, pending: [] }, redis: { ok: true, configured: true } },
      });
    }
  });

  it("concurrent calls of one user over both instances never overdraw; every refusal is the quota error", async () => {
    const calls = Array.from({ length: AFFORDABLE_CALLS * 3 }, (_, i) => chat(i % 2 ? b! : a!, payer.key, "m-call"));
    const answers = await Promise.all(calls);
    const served = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThanOrEqual(AFFORDABLE_CALLS);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.json.error).toMatchObject({ type: "insufficient_user_quota", code: "insufficient_user_quota" });
    }

    // Once both ledgers have written: each served call is one log row of its price, the user's
    // balance plus the unused part of its open holds plus the logs is what it had, used_quota is
    // the logs' sum, and the data dashboard counted each call once.
    const start = CALL_PRICE * BigInt(AFFORDABLE_CALLS);
    const spentNow = async () => {
      const logs = await t.db.log.findMany({ where: { user_id: payer.id, type: 2 } });
      const u = await t.db.user.findUniqueOrThrow({ where: { id: payer.id } });
      const holds = await t.db.quotaHold.findMany({ where: { user_id: payer.id, state: 0 } });
      const unused = holds.reduce((sum, h) => sum + h.amount - h.consumed, 0n);
      const logged = logs.reduce((sum, l) => sum + l.quota, 0n);
      return { rows: logs.length, logged, quota: u.quota, balanced: u.quota + unused + logged === start, used: u.used_quota };
    };
    await expect
      .poll(spentNow, { timeout: 15_000 })
      .toMatchObject({ rows: served.length, balanced: true, used: CALL_PRICE * BigInt(served.length) });
    const spent = await spentNow();
    expect(spent.logged).toBe(CALL_PRICE * BigInt(served.length));
    expect(spent.quota).toBeGreaterThanOrEqual(0n);
    const buckets = await t.db.quotaData.findMany({ where: { user_id: payer.id } });
    expect(buckets.reduce((n, q) => n + q.count, 0)).toBe(served.length);
  });

  it("one code redeemed at once on both instances by one user, and by another, credits once", async () => {
    const users = [await user("redeemer1", 0n), await user("redeemer2", 0n)];
    const sessions = await Promise.all(users.map((u) => signIn(u.id)));
    const code = generateRedemptionKey();
    await t.db.redemption.create({
      data: { key_hash: hashRedemptionKey(code), key_enc: seal(code), key_hint: redemptionKeyHint(code), name: "once", quota: 12_345n },
    });
    const tries = sessions.flatMap((s) => [a!, b!].map((server) => api(server, s, "POST", "/api/user/topup", { key: code })));
    const answers = await Promise.all(tries);
    expect(answers.filter((r) => r.json.success)).toHaveLength(1);
    for (const r of answers.filter((x) => !x.json.success)) expect(r.json.message).toBe("该兑换码已被使用");
    const after = await t.db.user.findMany({ where: { id: { in: users.map((u) => u.id) } } });
    expect(after.reduce((sum, u) => sum + u.quota, 0n)).toBe(12_345n);
    expect(await t.db.log.count({ where: { user_id: { in: users.map((u) => u.id) }, type: 1 } })).toBe(1);
  });

  it("a price, a channel, a key and a user changed through A are used by A's relay at once and by B within a second", async () => {
    // Both have them in memory: m-new is not priced yet, so not listed.
    expect(await models(a!, watcher.key)).toEqual(["m-call", "m-gone"]);
    expect(await models(b!, watcher.key)).toEqual(["m-call", "m-gone"]);

    // A's console answers once A's relay worker uses what it saved (lib/cache/bus.ts): no polling
    // on A, however often the price comes and goes.
    for (let i = 0; i < 10; i++) {
      await setOption("ModelRatio", JSON.stringify({ "m-gone": 1, "m-new": 1 }));
      expect(await models(a!, watcher.key)).toEqual(["m-call", "m-gone", "m-new"]);
      if (i === 9) break;
      await setOption("ModelRatio", JSON.stringify({ "m-gone": 1 }));
      expect(await models(a!, watcher.key)).toEqual(["m-call", "m-gone"]);
    }
    expect(await msUntil(async () => (await models(b!, watcher.key)).toString() === "m-call,m-gone,m-new")).toBeLessThanOrEqual(WITHIN_MS);

    const disabled = await api(a!, root, "PUT", "/api/channel/", { id: gone, status: 2 });
    expect(disabled.json).toMatchObject({ success: true });
    expect(await models(a!, watcher.key)).toEqual(["m-call"]);
    expect(await msUntil(async () => (await models(b!, watcher.key)).toString() === "m-call")).toBeLessThanOrEqual(WITHIN_MS);

    const owner = await signIn(watcher.userId);
    expect((await chat(b!, watcher.key, "m-call")).status).toBe(200);
    const keyOff = await api(a!, owner, "PUT", "/api/token/?status_only=true", { id: watcher.tokenId, status: 2 });
    expect(keyOff.json).toMatchObject({ success: true });
    expect(await models(a!, watcher.key)).toBe(401);
    expect(await msUntil(async () => (await models(b!, watcher.key)) === 401)).toBeLessThanOrEqual(WITHIN_MS);

    expect(await models(b!, watcher.spareKey)).toEqual(["m-call"]);
    const banned = await api(a!, root, "POST", "/api/user/manage", { id: watcher.userId, action: "disable" });
    expect(banned.json).toMatchObject({ success: true });
    expect(typeof (await models(a!, watcher.spareKey))).toBe("number");
    expect(await msUntil(async () => typeof (await models(b!, watcher.spareKey)) === "number")).toBeLessThanOrEqual(WITHIN_MS);
  });

  it("a session ended on A is refused by B at once", async () => {
    const u = await user("two-sessions", 0n);
    const here = await signIn(u.id);
    const there = await signIn(u.id);
    expect((await api(b!, there, "GET", "/api/user/self")).status).toBe(200);
    const ended = await api(a!, here, "DELETE", `/api/user/self/sessions/${there.jti}`);
    expect(ended.json).toMatchObject({ success: true });
    expect(await msUntil(async () => (await api(b!, there, "GET", "/api/user/self")).status === 401)).toBeLessThanOrEqual(WITHIN_MS);
    expect((await api(b!, here, "GET", "/api/user/self")).status).toBe(200);
  });

  it("a user's request limit is counted over both instances together", async () => {
    const u = await user("limited", 10_000_000n);
    const k = (await key(u.id)).key;
    await setOption("ModelRequestRateLimitCount", "4");
    await setOption("ModelRequestRateLimitEnabled", "true");
    try {
      // B's console has it (the same Redis message reached its relay worker).
      await expect
        .poll(
          async () =>
            ((await api(b!, root, "GET", "/api/option/")).json.data as { key: string; value: string }[]).find(
              (o) => o.key === "ModelRequestRateLimitEnabled",
            )?.value,
        )
        .toBe("true");
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await chat(i % 2 ? b! : a!, k, "m-call")).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await setOption("ModelRequestRateLimitEnabled", "false");
    }
  });

  it("without Redis, the third instance sees a channel change made on A within SYNC_FREQUENCY", async () => {
    const watched = await channel("watched-c", "m-gone");
    // Another user: the watcher is banned by now.
    const u = await user("c-watcher", 1_000_000n);
    const k = (await key(u.id)).key;
    await expect.poll(() => models(c!, k), { timeout: 5_000 }).toEqual(["m-call", "m-gone"]);
    const off = await api(a!, root, "PUT", "/api/channel/", { id: watched, status: 2 });
    expect(off.json).toMatchObject({ success: true });
    // SYNC_FREQUENCY is 1 s: within it the cache is dropped, and the next call reads the table again.
    expect(await msUntil(async () => (await models(c!, k)).toString() === "m-call")).toBeLessThanOrEqual(1000 + WITHIN_MS);
  });

  it("Redis gone from B: B goes on with its caches and says so; back, it reloads them and sees what it missed", async () => {
    const u = await user("outage-watcher", 1_000_000n);
    const k = (await key(u.id)).key;
    expect(await models(b!, k)).toEqual(["m-call"]);
    await link.cut();
    await expect
      .poll(async () => (await (await fetch(`${b!.url}/readyz`)).json()).checks.redis, { timeout: 10_000 })
      .toMatchObject({ ok: false, configured: true, fallback: "local caches" });
    expect((await fetch(`${b!.url}/readyz`)).status).toBe(200);
    expect((await chat(b!, k, "m-call")).status).toBe(200);

    // Made on A while B hears nothing (its SYNC_FREQUENCY is an hour): B still has the channel off.
    const on = await api(a!, root, "PUT", "/api/channel/", { id: gone, status: 1 });
    expect(on.json).toMatchObject({ success: true });
    expect(await models(a!, k)).toEqual(["m-call", "m-gone", "m-new"]);
    expect(await models(b!, k)).toEqual(["m-call"]);

    await link.restore();
    await expect.poll(() => models(b!, k), { timeout: 20_000, interval: 100 }).toEqual(["m-call", "m-gone", "m-new"]);
    await expect.poll(() => b!.output()).toMatch(/"component":"cache"[^\n]*"msg":"Redis bus unavailable/);
    await expect.poll(() => b!.output(), { timeout: 5_000 }).toMatch(/"component":"cache"[^\n]*"msg":"Redis bus is back/);
  });

  it("the periodic jobs run each round on one instance: one channel test per slot, one poller, one hold sweep, one retention", async () => {
    // The scheduled test ticks every 30 s in each of the three consoles; the first tick of each
    // takes the slot when no other did. Wait for a round, then count rounds against slots.
    await expect
      .poll(() => t.db.log.count({ where: { token_name: TEST_LOG_TOKEN_NAME } }), { timeout: 120_000, interval: 1000 })
      .toBeGreaterThan(0);
    await sleep(2000);
    const slots = Math.floor(Date.now() / 60_000) - Math.floor(aStartedAt / 60) + 1;
    const testLogs = await t.db.log.findMany({ where: { token_name: TEST_LOG_TOKEN_NAME } });
    const perChannel = new Map<number, number>();
    for (const l of testLogs) perChannel.set(l.channel_id, (perChannel.get(l.channel_id) ?? 0) + 1);
    for (const [id, rounds] of perChannel) expect(rounds, `channel #${id}`).toBeLessThanOrEqual(slots);
    const slotLease = await t.db.option.findUniqueOrThrow({ where: { key: CHANNEL_TEST_LEASE_KEY } });
    expect(Number(slotLease.value)).toBeGreaterThanOrEqual(Math.floor(aStartedAt / 60));

    // The task poller's lease: held by one console, renewed round after round.
    const lease = async () => (await t.db.option.findUniqueOrThrow({ where: { key: TASK_POLL_LEASE_KEY } })).value;
    const first = await lease();
    await expect.poll(lease, { timeout: POLL_INTERVAL_MS * 2, interval: 1000 }).not.toBe(first);
    const holderOf = (v: string) => v.slice(0, v.lastIndexOf("@"));
    expect(holderOf(await lease())).toBe(holderOf(first));

    // The orphaned hold is closed by the master's sweep, its unspent 5000 returned once.
    await expect
      .poll(async () => (await t.db.quotaHold.findUniqueOrThrow({ where: { id: "orphan-hold" } })).state, {
        timeout: 70_000,
        interval: 1000,
      })
      .toBe(1);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: holder.id } })).quota).toBe(holder.quota + HOLD_AMOUNT - HOLD_CONSUMED);
    // That was a minute's sweep (the hold came after A's start), taken by lease: one process's.
    expect((await t.db.option.findUniqueOrThrow({ where: { key: HOLD_SWEEP_LEASE_KEY } })).value).toMatch(/^\d+-[0-9a-f]{8}@\d+$/);

    // The daily log retention: run by the one console that took the day's lease.
    await expect.poll(() => t.db.log.count({ where: { content: "old" } }), { timeout: 60_000, interval: 1000 }).toBe(0);
    // Every console has checked once by now; only one ran it.
    await sleep(Math.max(0, lastReadyAt + 62_000 - Date.now()));
    const retained = [a!, b!, c!].filter((s) => /"component":"logs"[^\n]*"msg":"retention deleted"/.test(s.output()));
    expect(retained).toHaveLength(1);
    expect((await t.db.option.findUniqueOrThrow({ where: { key: LOG_RETENTION_LEASE_KEY } })).value).toMatch(/@\d+$/);
  }, 240_000);
});
