// The relay in its own process: killed between reserve and settle, silent upstreams, and
// concurrent spending on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb, type Db } from "@/lib/db";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

/** Seeds a user with a key and one channel straight into a database (any of the three). */
async function seed(db: Db, o: { quota: bigint; baseUrl: string; model: string }) {
  const user = await db.user.create({
    data: { username: `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, password: "x", quota: o.quota },
  });
  const key = generateTokenKey();
  await db.token.create({
    data: {
      user_id: user.id,
      key_hash: hashTokenKey(key),
      key_enc: seal(key),
      key_hint: tokenKeyHint(key),
      name: "k",
      unlimited_quota: true,
      expired_time: -1,
    },
  });
  const channel = await db.channel.create({
    data: { type: 1, name: "c", key: seal("sk-up"), base_url: o.baseUrl, models: o.model, group: "default" },
  });
  await db.ability.createMany({
    data: abilityRowsFor({ id: channel.id, models: o.model, group: "default", priority: 0, weight: 0, status: 1 }),
  });
  return { userId: user.id, key: `sk-${key}` };
}

const quotaOf = async (db: Db, id: number) => (await db.user.findUniqueOrThrow({ where: { id } })).quota;

describe("a relay process", () => {
  let mock: OpenAIMock;
  beforeAll(async () => {
    mock = await startOpenAIMock();
  });
  afterAll(async () => {
    await mock.close();
  });

  it("killed between reserve and settle loses and creates no quota: the next start returns the hold", async () => {
    const db = await getDb();
    const { userId, key } = await seed(db, { quota: 1_000_000n, baseUrl: mock.url, model: "gpt-4o-mini" });
    mock.setBehaviour({ stallAfterHeadersMs: 30_000 });
    const first = await startRelayProcess({ HOLD_STALE_SECONDS: "1" });
    const pending = fetch(`${first.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }),
    }).catch(() => null);
    await expect.poll(() => mock.requests.length, { timeout: 10_000 }).toBe(1);
    expect(await quotaOf(db, userId)).toBeLessThan(1_000_000n);
    expect(await db.quotaHold.count({ where: { user_id: userId, state: 0 } })).toBe(1);
    await first.kill();
    await pending;
    mock.setBehaviour(null);
    await new Promise((r) => setTimeout(r, 2100));
    const second = await startRelayProcess({ HOLD_STALE_SECONDS: "1" });
    try {
      expect(await quotaOf(db, userId)).toBe(1_000_000n);
      expect(await db.quotaHold.count({ where: { user_id: userId, state: 0 } })).toBe(0);
      // And it relays normally afterwards.
      const client = new OpenAI({ apiKey: key, baseURL: `${second.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    } finally {
      await second.stop();
    }
    const spent = (await db.log.aggregate({ where: { user_id: userId, type: 2 }, _sum: { quota: true } }))._sum.quota ?? 0n;
    expect(await quotaOf(db, userId)).toBe(1_000_000n - spent);
  });

  it("sends keep-alive comments while the upstream is silent, and ends a stream silent for STREAMING_TIMEOUT", async () => {
    const db = await getDb();
    const { userId, key } = await seed(db, { quota: 1_000_000n, baseUrl: mock.url, model: "gpt-4o-mini" });
    const relay = await startRelayProcess({ STREAM_KEEPALIVE: "1", STREAMING_TIMEOUT: "3" });
    const call = () =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }),
      }).then((r) => r.text());
    try {
      mock.setBehaviour({ stallAfterHeadersMs: 2200 });
      const slow = await call();
      expect(slow.indexOf(": ping")).toBeGreaterThanOrEqual(0);
      expect(slow.indexOf(": ping")).toBeLessThan(slow.indexOf("Hello"));
      expect(slow).toContain("data: [DONE]");

      mock.setBehaviour({ stallAfterHeadersMs: 8000 });
      const started = Date.now();
      const silent = await call();
      expect(Date.now() - started).toBeLessThan(7000);
      expect(silent).toContain('"error"');
      expect(silent.trimEnd().endsWith("data: [DONE]")).toBe(true);
    } finally {
      mock.setBehaviour(null);
      await relay.stop();
    }
    // Both requests were settled and logged by the graceful stop.
    expect(await db.log.count({ where: { user_id: userId, type: 2 } })).toBe(2);
  });

  describe("on PostgreSQL", () => {
    let pg: TestDatabase;
    beforeAll(async () => {
      pg = await createTestDatabase("postgresql");
    });
    afterAll(async () => {
      await pg?.drop();
    });

    it("50 concurrent requests from a user whose balance covers 5 never overdraw", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 90, total_tokens: 100 } });
      await pg.db.option.createMany({
        data: [
          { key: "ModelRatio", value: JSON.stringify({ "m-flat": 1 }) },
          { key: "CompletionRatio", value: JSON.stringify({ "m-flat": 1 }) },
        ],
      });
      const { userId, key } = await seed(pg.db, { quota: 520n, baseUrl: mock.url, model: "m-flat" });
      const relay = await startRelayProcess({ SQL_DSN: pg.dsn });
      try {
        const client = new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, () =>
            client.chat.completions.create({ model: "m-flat", max_tokens: 90, messages: [{ role: "user", content: "hi" }] }),
          ),
        );
        const ok = results.filter((r) => r.status === "fulfilled").length;
        expect(ok).toBeGreaterThanOrEqual(1);
        expect(ok).toBeLessThanOrEqual(5);
        expect(
          (results.filter((r) => r.status === "rejected") as PromiseRejectedResult[]).every(
            (r) => (r.reason as { status: number }).status === 403,
          ),
        ).toBe(true);
      } finally {
        mock.setBehaviour(null);
        await relay.stop();
      }
      const after = await quotaOf(pg.db, userId);
      expect(after).toBeGreaterThanOrEqual(0n);
      const spent = (await pg.db.log.aggregate({ where: { user_id: userId, type: 2 }, _sum: { quota: true } }))._sum.quota ?? 0n;
      expect(520n - after).toBe(spent);
    });
  });
});
