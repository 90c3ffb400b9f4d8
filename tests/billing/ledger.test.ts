// The ledger against real databases: no overdraft under concurrency (also across two ledgers,
// i.e. two instances), exact refunds, and crash recovery.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeHold, QuotaLedger, QuotaShortfall, recoverHolds, type UsageRecord, DEFAULT_LEDGER_OPTIONS } from "@/lib/billing/ledger";
import { openDb, type Db, type DbKind } from "@/lib/db";
import { openDirectWriter } from "@/lib/db/direct";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const record = (userId: number, tokenId: number, log = true): UsageRecord => ({
  userId,
  tokenId,
  channelId: 0,
  modelName: "gpt-4o-mini",
  promptTokens: 10,
  completionTokens: 5,
  log: log
    ? { user_id: userId, created_at: Math.floor(Date.now() / 1000), type: 2, content: "", username: "u", token_name: "t", model_name: "gpt-4o-mini", quota: 0n, prompt_tokens: 10, completion_tokens: 5, use_time: 0, is_stream: false, channel_id: 0, token_id: tokenId, group: "default", request_id: "r", other: "{}" }
    : null,
});

const OPTIONS = { ...DEFAULT_LEDGER_OPTIONS, flushIntervalMs: 60_000 };

async function seed(db: Db, quota: bigint, tokenRemain: bigint | null) {
  const user = await db.user.create({ data: { username: `u${Math.random().toString(36).slice(2, 10)}`, password: "x", quota } });
  const token = tokenRemain === null ? null : await db.token.create({ data: { user_id: user.id, key_hash: Math.random().toString(36), key_enc: "x", remain_quota: tokenRemain } });
  return { userId: user.id, tokenId: token?.id ?? 0 };
}

async function balance(db: Db, userId: number) {
  return (await db.user.findUniqueOrThrow({ where: { id: userId }, select: { quota: true } })).quota;
}

for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`ledger on ${kind}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await t?.drop();
    });

    it("lets 50 concurrent requests spend a balance that covers 5, and never below zero", async () => {
      const { userId, tokenId } = await seed(t.db, 500n, null);
      const ledger = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => ledger.reserve({ userId, tokenId }, 100n, 500n)));
      const ok = results.filter((r) => r.status === "fulfilled");
      const failed = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      expect(ok).toHaveLength(5);
      expect(failed.every((r) => r.reason instanceof QuotaShortfall && r.reason.who === "user")).toBe(true);
      expect(await balance(t.db, userId)).toBe(0n);
      for (const r of ok) await ledger.settle((r as PromiseFulfilledResult<any>).value, 100n, record(userId, tokenId));
      await ledger.close();
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(user.quota).toBe(0n);
      expect(user.used_quota).toBe(500n);
      expect(user.request_count).toBe(5);
      expect(await t.db.log.count({ where: { user_id: userId } })).toBe(5);
    });

  // Several instances share a database server; SQLite serves one process (two SQLite clients in
  // one thread would block each other inside better-sqlite3's synchronous busy wait).
      // Nothing was settled, so closing returned every reservation.
    if (kind !== "sqlite") {
      it("two instances racing for one balance still never overdraw", async () => {
        const { userId } = await seed(t.db, 500n, null);
        const second = await openDb(kind, t.dsn);
        const a = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
        const b = new QuotaLedger(second, await openDirectWriter(kind, t.dsn), OPTIONS);
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).reserve({ userId, tokenId: 0 }, 100n, 500n)),
        );
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
        expect(await balance(t.db, userId)).toBe(0n);
        await a.close();
        await b.close();
        await second.$disconnect();
        expect(await balance(t.db, userId)).toBe(500n);
      });
    }

    it("leases ahead when the balance is ample and returns the unused part exactly", async () => {
      const { userId, tokenId } = await seed(t.db, 1_000_000n, 1_000_000n);
      const ledger = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      let charged = 0n;
      for (let i = 0; i < 40; i++) {
        const r = await ledger.reserve({ userId, tokenId }, 100n, 1_000_000n);
        charged += await ledger.settle(r, 37n, record(userId, tokenId));
      }
      // 40 requests drew on very few holds: the hot path stayed in memory.
      expect(await t.db.quotaHold.count({ where: { user_id: userId } })).toBeLessThanOrEqual(2);
      await ledger.close();
      expect(charged).toBe(40n * 37n);
      expect(await balance(t.db, userId)).toBe(1_000_000n - charged);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(1_000_000n - charged);
      expect(token.used_quota).toBe(charged);
      expect(await t.db.quotaHold.count({ where: { user_id: userId, state: 0 } })).toBe(0);
    });

    it("stops at the token's remaining quota and says so", async () => {
      const { userId, tokenId } = await seed(t.db, 10_000n, 250n);
      const ledger = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      await ledger.reserve({ userId, tokenId }, 100n, 10_000n);
      await ledger.reserve({ userId, tokenId }, 100n, 10_000n);
      await expect(ledger.reserve({ userId, tokenId }, 100n, 10_000n)).rejects.toMatchObject({ who: "token" });
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(10_000n);
    });

    it("charges usage beyond the reservation only as far as the balance goes", async () => {
      const { userId } = await seed(t.db, 150n, null);
      const ledger = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      const r = await ledger.reserve({ userId, tokenId: 0 }, 100n, 150n);
      const charged = await ledger.settle(r, 400n, record(userId, 0));
      expect(charged).toBe(150n);
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(0n);
      const log = await t.db.log.findFirstOrThrow({ where: { user_id: userId } });
      expect(log.quota).toBe(150n);
    });

    it("settles a reservation only once", async () => {
      const { userId } = await seed(t.db, 1000n, null);
      const ledger = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      const r = await ledger.reserve({ userId, tokenId: 0 }, 100n, 1000n);
      await ledger.settle(r, 60n, record(userId, 0));
      expect(await ledger.settle(r, 60n, record(userId, 0))).toBe(0n);
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(940n);
    });

    it("recovers a crashed instance's holds exactly once", async () => {
      const { userId, tokenId } = await seed(t.db, 5000n, 5000n);
      const crashed = new QuotaLedger(t.db, await openDirectWriter(kind, t.dsn), OPTIONS);
      const r = await crashed.reserve({ userId, tokenId }, 300n, 5000n);
      await crashed.settle(r, 120n, record(userId, tokenId));
      await crashed.flush();
      await crashed.reserve({ userId, tokenId }, 300n, 5000n); // in flight when the "crash" happens
      // The instance dies here: no close(). Its hold stops being refreshed.
      const held = await balance(t.db, userId);
      expect(held).toBeLessThan(5000n);
      await t.db.quotaHold.updateMany({ where: { user_id: userId }, data: { updated_at: 1 } });
      await Promise.all([recoverHolds(t.db, 60), recoverHolds(t.db, 60)]);
      expect(await balance(t.db, userId)).toBe(5000n - 120n);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(5000n - 120n);
      const holds = await t.db.quotaHold.findMany({ where: { user_id: userId } });
      expect(holds.every((h) => h.state === 1)).toBe(true);
      expect(await closeHold(t.db, holds[0]!.id)).toBe(0n);
    });
  });
}
