// A relay process as `npm start` runs its workers, on each database: without Prisma, through the
// drivers alone (lib/db/direct.ts), it looks up keys and users, loads the routing table and the
// options, checks playground sessions, answers the billing endpoints, auto-disables a dead
// channel and bills exactly. The process reports the packages it loaded (fixtures/loaded-modules).
// @main-database none (it runs on each database by name; scripts/database-tests.mjs).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Db, DbKind } from "@/lib/db";
import { seal } from "@/lib/crypto/secret-box";
import { revokeSession } from "@/lib/auth/session-check";
import { decodeSession, encodeSession } from "@/lib/auth/session";
import { createSessionRow } from "@/lib/auth/sessions";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { OptionsCache } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const PROBE = `--require ${path.resolve("tests/fixtures/loaded-modules.cjs")}`;
const DRIVER: Record<DbKind, string> = { sqlite: "better-sqlite3", postgresql: "pg", mysql: "mariadb" };

const databaseEnv = (t: TestDatabase): Record<string, string> =>
  t.kind === "sqlite" ? { SQL_DSN: "", SQLITE_PATH: t.dsn } : { SQL_DSN: t.dsn };

async function seedKey(db: Db, userId: number, o: { remain_quota?: bigint; unlimited_quota?: boolean; expired_time?: number } = {}) {
  const key = generateTokenKey();
  const token = await db.token.create({
    data: {
      user_id: userId,
      key_hash: hashTokenKey(key),
      key_enc: seal(key),
      key_hint: tokenKeyHint(key),
      name: "k",
      remain_quota: o.remain_quota ?? 0n,
      unlimited_quota: o.unlimited_quota ?? false,
      expired_time: o.expired_time ?? -1,
    },
  });
  return { id: token.id, key: `sk-${key}` };
}

async function seedChannel(db: Db, baseUrl: string, model: string) {
  const channel = await db.channel.create({
    data: { type: 1, name: model, key: seal("sk-up"), base_url: baseUrl, models: model, group: "default", address_by_root: true },
  });
  await db.ability.createMany({
    data: abilityRowsFor({ id: channel.id, models: model, group: "default", priority: 0, weight: 0, status: 1 }),
  });
  return channel.id;
}

const packagesOf = (output: string) => /LOADED (.*)/.exec(output)?.[1]?.split(",") ?? [];

describe("a relay process without Prisma", () => {
  let good: OpenAIMock;
  let dead: OpenAIMock;
  beforeAll(async () => {
    [good, dead] = await Promise.all([startOpenAIMock(), startOpenAIMock()]);
    good.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 90, total_tokens: 100 } });
    dead.setBehaviour({ failStatus: 401 });
  });
  afterAll(async () => {
    await Promise.all([good.close(), dead.close()]);
  });

  for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
    describe(`on ${kind}`, () => {
      let t: TestDatabase;
      beforeAll(async () => {
        t = await createTestDatabase(kind);
      });
      afterAll(async () => {
        await t?.drop();
      });

      it("serves keys, users, routing, options, sessions and billing through the driver, and bills exactly", async () => {
        const { db } = t;
        await db.option.createMany({
          data: [
            { key: "ModelRatio", value: JSON.stringify({ "m-flat": 1, "m-dead": 1 }) },
            { key: "CompletionRatio", value: JSON.stringify({ "m-flat": 1, "m-dead": 1 }) },
            { key: "AutomaticDisableChannelEnabled", value: "true" },
          ],
        });
        const user = await db.user.create({ data: { username: `d${Date.now().toString(36)}`, password: "x", quota: 1_000_000n } });
        const limited = await seedKey(db, user.id, { remain_quota: 500_000n });
        const expired = await seedKey(db, user.id, { unlimited_quota: true, expired_time: Math.floor(Date.now() / 1000) - 60 });
        await seedChannel(db, good.url, "m-flat");
        const deadChannel = await seedChannel(db, dead.url, "m-dead");
        const claims = { id: user.id, username: user.username, role: user.role, ver: user.auth_version };
        const rowOf = () => createSessionRow(new Headers(), user.id, "password", { db: t.direct });
        const session = await encodeSession({ ...claims, jti: await rowOf() });
        const revoked = await encodeSession({ ...claims, jti: await rowOf() });
        await revokeSession((await decodeSession(revoked))!, t.direct);

        const relay = await startRelayProcess({ ...databaseEnv(t), NODE_OPTIONS: PROBE });
        onTestFinished(() => void relay.kill());
        const call = (p: string, init: { key?: string; cookie?: string; body?: unknown } = {}) =>
          fetch(`${relay.url}${p}`, {
            method: init.body ? "POST" : "GET",
            headers: {
              ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
              ...(init.cookie ? { cookie: `qiao_session=${init.cookie}`, "new-api-user": String(user.id) } : {}),
              "content-type": "application/json",
            },
            body: init.body ? JSON.stringify(init.body) : undefined,
          }).then(async (r) => ({ status: r.status, json: await r.json() }));
        const chat = (model: string) => ({ model, max_tokens: 90, messages: [{ role: "user", content: "hi" }] });

        const answered = await call("/v1/chat/completions", { key: limited.key, body: chat("m-flat") });
        expect(answered.status).toBe(200);
        expect(answered.json.usage.total_tokens).toBe(100);
        const models = await call("/v1/models", { key: limited.key });
        expect(models.json.data.map((m: { id: string }) => m.id)).toEqual(["m-dead", "m-flat"]);
        // The key's own quota, leases added back: 500 000 units = US$1 whatever was spent. Until the
        // ledger's next flush (250 ms) the call just answered may still count as in flight (its
        // reservation, written by a flush while it ran): the figure then settles, exactly.
        await expect
          .poll(async () => (await call("/v1/dashboard/billing/subscription", { key: limited.key })).json.hard_limit_usd, {
            timeout: 3_000,
          })
          .toBe(1);
        const expiredAnswer = await call("/v1/chat/completions", { key: expired.key, body: chat("m-flat") });
        expect(expiredAnswer.status).toBe(401);
        expect(expiredAnswer.json.error.message).toContain("该令牌已过期");
        const playground = await call("/pg/chat/completions", { cookie: session, body: chat("m-flat") });
        expect(playground.status).toBe(200);
        const refused = await call("/pg/chat/completions", { cookie: revoked, body: chat("m-flat") });
        expect(refused.status).toBe(401);
        // A dead key upstream: the channel is disabled, its abilities too, with the reason.
        expect((await call("/v1/chat/completions", { key: limited.key, body: chat("m-dead") })).status).toBe(401);
        await expect.poll(async () => (await db.channel.findUniqueOrThrow({ where: { id: deadChannel } })).status).toBe(3);
        expect(JSON.parse((await db.channel.findUniqueOrThrow({ where: { id: deadChannel } })).other_info).status_reason).toContain("401");
        expect(await db.ability.count({ where: { channel_id: deadChannel, enabled: true } })).toBe(0);

        await relay.stop(); // writes the usage and returns the holds
        const after = await db.user.findUniqueOrThrow({ where: { id: user.id } });
        expect(after.used_quota).toBe(200n);
        expect(after.quota).toBe(1_000_000n - 200n);
        expect(after.request_count).toBe(2);
        const token = await db.token.findUniqueOrThrow({ where: { id: limited.id } });
        expect(token.remain_quota).toBe(500_000n - 100n);
        expect(token.used_quota).toBe(100n);
        expect(await db.log.count({ where: { user_id: user.id, type: 2 } })).toBe(2);
        expect(await db.quotaHold.count({ where: { user_id: user.id, state: 0 } })).toBe(0);

        const loaded = packagesOf(relay.output());
        expect(loaded).toContain(DRIVER[kind]);
        expect(loaded.filter((p) => p.startsWith("@prisma/"))).toEqual([]);
      }, 60_000);

      it("saves options and ends sessions through the same driver the relay reads them with", async () => {
        const options = new OptionsCache(async () => t.direct);
        await options.update("QuotaForNewUser", "7");
        await options.update("QuotaForNewUser", "8");
        expect((await new OptionsCache(async () => t.direct).current()).values.QuotaForNewUser).toBe(8);
        expect(await t.db.option.findUniqueOrThrow({ where: { key: "QuotaForNewUser" } })).toMatchObject({ value: "8" });
        const user = await t.db.user.create({ data: { username: `s${Date.now().toString(36)}`, password: "x" } });
        const jti = await createSessionRow(new Headers({ "user-agent": "probe" }), user.id, "password", { db: t.direct });
        // An expired row is pruned when the next session starts.
        await t.db.userSession.create({ data: { id: "old", user_id: user.id, created_at: 1, last_seen: 1, expires_at: 1 } });
        const other = await createSessionRow(new Headers(), user.id, "github", { db: t.direct });
        expect((await t.db.userSession.findMany({ where: { user_id: user.id }, select: { id: true } })).map((r) => r.id).sort()).toEqual(
          [jti, other].sort(),
        );
        const cookie = await encodeSession({ id: user.id, username: user.username, role: user.role, ver: user.auth_version, jti });
        const decoded = (await decodeSession(cookie))!;
        // Revoking twice is harmless; only that session's row goes.
        await revokeSession(decoded, t.direct);
        await revokeSession(decoded, t.direct);
        expect(await t.db.userSession.findMany({ where: { user_id: user.id }, select: { id: true } })).toEqual([{ id: other }]);
      });
    });
  }

  it("the probe sees Prisma where it is loaded (the control)", async () => {
    const t = await createTestDatabase("sqlite");
    onTestFinished(() => t.drop());
    const relay = await startRelayProcess({ ...databaseEnv(t), NODE_OPTIONS: PROBE, QIAO_TEST_OPEN_PRISMA: "1" });
    onTestFinished(() => void relay.kill());
    await relay.stop();
    expect(packagesOf(relay.output())).toContain("@prisma/client");
  }, 60_000);
});
