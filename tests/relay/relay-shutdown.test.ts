// `npm start` (scripts/start.mjs, building first when the sources changed) on its own SQLite file.
// Stopped with SIGTERM while streams are open: /readyz says 503 at once, new calls are refused in
// their caller's protocol, streams that end before SHUTDOWN_TIMEOUT end whole, the one that would
// not is cut there, the server exits 0, and every unit of quota is accounted for. And /readyz on
// an instance whose Redis is down and whose database lacks a migration.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { freePort, killServer, type Server, startServer } from "@/tests/helpers/instance";

const START_QUOTA = 50_000_000n;
const TOKEN_QUOTA = 40_000_000n;
const SHORT_WORDS = 12;
const LONG_WORDS = 80;
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

async function seed(t: TestDatabase, shortUrl: string, longUrl: string) {
  await t.db.option.createMany({
    data: [
      { key: "ModelRatio", value: JSON.stringify({ "m-short": 1, "m-long": 1 }) },
      { key: "CompletionRatio", value: JSON.stringify({ "m-short": 1, "m-long": 1 }) },
    ],
  });
  const user = await t.db.user.create({ data: { username: "drain", password: "x", quota: START_QUOTA } });
  const key = generateTokenKey();
  const token = await t.db.token.create({
    data: {
      user_id: user.id,
      key_hash: hashTokenKey(key),
      key_enc: seal(key),
      key_hint: tokenKeyHint(key),
      name: "k",
      remain_quota: TOKEN_QUOTA,
      unlimited_quota: false,
      expired_time: -1,
    },
  });
  for (const [model, baseUrl] of [
    ["m-short", shortUrl],
    ["m-long", longUrl],
  ] as const) {
    const channel = await t.db.channel.create({
      data: { type: 1, name: model, key: seal("sk-up"), base_url: baseUrl, models: model, group: "default" },
    });
    await t.db.ability.createMany({
      data: abilityRowsFor({ id: channel.id, models: model, group: "default", priority: 0, weight: 0, status: 1 }),
    });
  }
  return { userId: user.id, tokenId: token.id, key: `sk-${key}` };
}

describe("npm start stopped with SIGTERM while streams are open", () => {
  let t: TestDatabase;
  let shortMock: OpenAIMock;
  let longMock: OpenAIMock;
  let server: Server | undefined;
  let caller: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    t = await createTestDatabase("sqlite");
    // Short streams end about 1.2 s after they start; the long one would take 20 s.
    shortMock = await startOpenAIMock({ behaviour: { content: words(SHORT_WORDS, "s"), chunkDelayMs: 100 } });
    longMock = await startOpenAIMock({ behaviour: { content: words(LONG_WORDS, "l"), chunkDelayMs: 250 } });
    caller = await seed(t, shortMock.url, longMock.url);
    server = await startServer(t, { SHUTDOWN_TIMEOUT: "5" });
  }, 600_000);

  afterAll(async () => {
    await killServer(server);
    await shortMock?.close();
    await longMock?.close();
    await t?.drop();
  });

  it("drains: 503 for /readyz and new calls, short streams whole, the long one cut, exit 0, the ledger balanced", async () => {
    const s = server!;
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(200);
    const readyBody = await ready.json();
    expect(readyBody).toMatchObject({
      status: "ready",
      checks: { database: { ok: true }, migrations: { ok: true, pending: [] }, redis: { ok: true, configured: false }, draining: false },
    });

    const stream = (model: string) =>
      fetch(`${s.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${caller.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model, stream: true, messages: [{ role: "user", content: "hi" }] }),
      }).then(async (r) => ({ status: r.status, text: await r.text().catch((e: Error) => `read failed: ${e.message}`) }));
    const shorts = [stream("m-short"), stream("m-short"), stream("m-short")];
    const long = stream("m-long");
    await expect.poll(() => shortMock.requests.length + longMock.requests.length, { timeout: 10_000 }).toBe(4);

    s.child.kill("SIGTERM");
    await expect.poll(async () => (await fetch(`${s.url}/readyz`)).status, { timeout: 5_000 }).toBe(503);
    const draining = await fetch(`${s.url}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ status: "not_ready", checks: { draining: true } });
    // The process still answers.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);

    // A new call is refused in its caller's protocol, asked to come back, on a closing connection.
    const refused = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${caller.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m-short", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("connection")).toBe("close");
    expect(await refused.json()).toMatchObject({ error: { code: "shutting_down" } });
    const refusedClaude = await fetch(`${s.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": caller.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "m-short", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(refusedClaude.status).toBe(503);
    expect(await refusedClaude.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
    // Console paths too: the console stops with the instance.
    expect((await fetch(`${s.url}/api/status`)).status).toBe(503);

    for (const short of await Promise.all(shorts)) {
      expect(short.status).toBe(200);
      expect(short.text).toContain(`s${SHORT_WORDS - 1}`);
      expect(short.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    }
    const cut = await long;
    expect(cut.status).toBe(200);
    expect(cut.text).toContain("l0");
    expect(cut.text).not.toContain(`l${LONG_WORDS - 1}`);

    expect(await s.exited).toBe(0);
    expect(s.output()).toContain("draining");
    server = undefined;

    // Every unit is accounted for: what the user and the token lost is what the logs charged, the
    // user's used quota says the same, and no hold is left open.
    const user = await t.db.user.findUniqueOrThrow({ where: { id: caller.userId } });
    const token = await t.db.token.findUniqueOrThrow({ where: { id: caller.tokenId } });
    const logs = await t.db.log.findMany({ where: { user_id: caller.userId, type: 2 } });
    expect(logs.map((l) => l.model_name).sort()).toEqual(["m-long", "m-short", "m-short", "m-short"]);
    for (const log of logs) expect(log.quota).toBeGreaterThan(0n);
    const spent = logs.reduce((sum, l) => sum + l.quota, 0n);
    expect(user.quota + spent).toBe(START_QUOTA);
    expect(token.remain_quota + spent).toBe(TOKEN_QUOTA);
    expect(user.used_quota).toBe(spent);
    expect(await t.db.quotaHold.count({ where: { user_id: caller.userId, state: 0 } })).toBe(0);
  }, 120_000);
});

describe("npm start's /readyz with Redis down and a migration not applied", () => {
  let t: TestDatabase;
  let server: Server | undefined;

  beforeAll(async () => {
    t = await createTestDatabase("sqlite");
    // As a second instance (NODE_TYPE=slave) started before the master applied the last migration.
    const [last] = await t.db.$queryRawUnsafe<{ id: string; checksum: string }[]>(
      "SELECT id, checksum FROM qiao_migrations ORDER BY id DESC LIMIT 1",
    );
    missing = last!;
    await t.db.$executeRawUnsafe("DELETE FROM qiao_migrations WHERE id = ?", missing.id);
    server = await startServer(t, { NODE_TYPE: "slave", REDIS_CONN_STRING: `redis://127.0.0.1:${await freePort()}` });
  }, 600_000);
  let missing: { id: string; checksum: string };

  afterAll(async () => {
    if (server) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await t?.drop();
  });

  it("says 503 for the missing migration, and 200 with Redis down once it is applied, naming no address", async () => {
    const s = server!;
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    const pending = await fetch(`${s.url}/readyz`);
    expect(pending.status).toBe(503);
    const body = await pending.json();
    expect(body).toMatchObject({
      status: "not_ready",
      checks: {
        database: { ok: true },
        migrations: { ok: false, pending: [missing.id] },
        redis: { ok: false, configured: true, fallback: "local caches" },
        draining: false,
      },
    });
    expect(JSON.stringify(body)).not.toContain("redis://");

    // The master applies it: ready, Redis or not (the instance goes on with its local caches).
    await t.db.$executeRawUnsafe("INSERT INTO qiao_migrations (id, checksum) VALUES (?, ?)", missing.id, missing.checksum);
    await expect.poll(async () => (await fetch(`${s.url}/readyz`)).status, { timeout: 10_000 }).toBe(200);
    expect(await (await fetch(`${s.url}/readyz`)).json()).toMatchObject({
      status: "ready",
      checks: { migrations: { ok: true, pending: [] }, redis: { ok: false, fallback: "local caches" } },
    });
    await expect.poll(() => s.output()).toMatch(/"component":"health"[^\n]*"msg":"Redis unreachable/);
  }, 60_000);
});
