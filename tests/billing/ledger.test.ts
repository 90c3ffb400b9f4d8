// The ledger against real databases: no overdraft under concurrency (also across two ledgers,
// i.e. two instances), exact refunds, and crash recovery.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { closeHold, QuotaLedger, QuotaShortfall, recoverHolds, type UsageRecord, DEFAULT_LEDGER_OPTIONS } from "@/lib/billing/ledger";
import type { Db, DbKind } from "@/lib/db";
import { openDirectDb } from "@/lib/db/direct";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { withVisibleQuota, withVisibleRemain } from "@/lib/billing/visible";

const record = (userId: number, tokenId: number, log = true): UsageRecord => ({
  userId,
  tokenId,
  channelId: 0,
  modelName: "gpt-4o-mini",
  promptTokens: 10,
  completionTokens: 5,
  log: log
    ? {
        user_id: userId,
        created_at: Math.floor(Date.now() / 1000),
        type: 2,
        content: "",
        username: "u",
        token_name: "t",
        model_name: "gpt-4o-mini",
        quota: 0n,
        prompt_tokens: 10,
        completion_tokens: 5,
        use_time: 0,
        is_stream: false,
        channel_id: 0,
        token_id: tokenId,
        group: "default",
        request_id: "r",
        other: "{}",
      }
    : null,
});

const OPTIONS = { ...DEFAULT_LEDGER_OPTIONS, flushIntervalMs: 60_000 };

async function seed(db: Db, quota: bigint, tokenRemain: bigint | null) {
  const user = await db.user.create({ data: { username: `u${Math.random().toString(36).slice(2, 10)}`, password: "x", quota } });
  const token =
    tokenRemain === null
      ? null
      : await db.token.create({
          data: { user_id: user.id, key_hash: Math.random().toString(36), key_enc: "x", remain_quota: tokenRemain },
        });
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

    // A multi-key channel's key gets its usage with the batch, in one upsert per key; a channel
    // deleted meanwhile gets none, and the batch around it is still written.
    it("adds each multi-key channel key's quota and requests with the batch, skipping a deleted channel", async () => {
      const { userId } = await seed(t.db, 10_000n, null);
      const [live, gone] = await Promise.all(
        ["live", "gone"].map((name) => t.db.channel.create({ data: { name, key: "x", multi_key_mode: "random" } })),
      );
      await t.db.channelKey.create({ data: { channel_id: live!.id, key_hash: "h1", status: 3, used_quota: 7n, request_count: 1 } });
      await t.db.channel.delete({ where: { id: gone!.id } });
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const spend = async (channelId: number, channelKeyHash: string, quota: bigint) => {
        const r = await ledger.reserve({ userId, tokenId: 0 }, quota, quota);
        await ledger.settle(r, quota, { ...record(userId, 0), channelId, channelKeyHash });
      };
      await Promise.all([spend(live!.id, "h1", 10n), spend(live!.id, "h1", 20n), spend(live!.id, "h2", 5n), spend(gone!.id, "h1", 40n)]);
      await ledger.close();
      const rows = await t.db.channelKey.findMany({ where: { channel_id: live!.id }, orderBy: { key_hash: "asc" } });
      expect(rows.map((r) => [r.key_hash, r.status, r.used_quota, r.request_count])).toEqual([
        ["h1", 3, 37n, 3],
        ["h2", 1, 5n, 1],
      ]);
      expect(await t.db.channelKey.count({ where: { channel_id: gone!.id } })).toBe(0);
      expect(await t.db.log.count({ where: { user_id: userId } })).toBe(4);
    });

    it("lets 50 concurrent requests spend a balance that covers 5, and never below zero", async () => {
      const { userId, tokenId } = await seed(t.db, 500n, null);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
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

    // Several instances share a database server, and the relay workers of `npm start` share the
    // SQLite file: two direct connections (here in one thread, whose SQLite lock waits yield to the
    // event loop instead of blocking it). Nothing was settled, so closing returned every reservation.
    it("two instances racing for one balance still never overdraw", async () => {
      const { userId } = await seed(t.db, 500n, null);
      const second = await openDirectDb(kind, t.dsn);
      const a = new QuotaLedger(t.direct, OPTIONS);
      const b = new QuotaLedger(second, OPTIONS);
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).reserve({ userId, tokenId: 0 }, 100n, 500n)),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
      expect(await balance(t.db, userId)).toBe(0n);
      await a.close();
      await b.close();
      await second.close();
      expect(await balance(t.db, userId)).toBe(500n);
    });

    // Leases taken, usage flushed and holds closed by two instances at once all lock the same
    // user, token and hold rows; in different orders they deadlocked (a 500 to the client).
    it("two instances leasing, flushing and closing holds on one user and token at once neither deadlock nor lose a unit", async () => {
      const start = 20_000n;
      const { userId, tokenId } = await seed(t.db, start, start);
      const second = await openDirectDb(kind, t.dsn);
      const options = { ...OPTIONS, flushBatch: 3 };
      const ledgers = [new QuotaLedger(t.direct, options), new QuotaLedger(second, options)];
      const errors: unknown[] = [];
      let charged = 0n;
      let settled = 0;
      const client = async (i: number) => {
        const ledger = ledgers[i % 2]!;
        for (let n = 0; n < 12; n++) {
          let reservation;
          try {
            reservation = await ledger.reserve({ userId, tokenId }, 100n, 100n); // a small hint: no lease ahead, a balance write per request
          } catch (error) {
            if (!(error instanceof QuotaShortfall)) errors.push(error);
            return;
          }
          await new Promise((r) => setImmediate(r));
          try {
            const c = await ledger.settle(reservation, BigInt(50 + ((i * 7 + n * 13) % 100)), record(userId, tokenId));
            charged += c;
            settled++;
          } catch (error) {
            errors.push(error);
          }
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, i) => client(i)));
      for (const l of ledgers) await l.close();
      await second.close();
      expect(errors).toEqual([]);
      expect(settled).toBeGreaterThan(100);
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(user.used_quota).toBe(charged);
      expect(user.quota + user.used_quota).toBe(start);
      expect(token.remain_quota + token.used_quota).toBe(start);
      expect(user.request_count).toBe(settled);
      const logged = await t.db.log.aggregate({ where: { user_id: userId }, _sum: { quota: true }, _count: true });
      expect(logged._count).toBe(settled);
      expect(BigInt(logged._sum.quota ?? 0)).toBe(charged);
      const holds = await t.db.quotaHold.findMany({ where: { user_id: userId } });
      expect(holds.every((h) => h.state === 1 && h.consumed <= h.amount)).toBe(true);
    });

    it("leases ahead when the balance is ample and returns the unused part exactly", async () => {
      const { userId, tokenId } = await seed(t.db, 1_000_000n, 1_000_000n);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
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

    it("reserves from an open hold without an await, and only from one with room", async () => {
      const { userId, tokenId } = await seed(t.db, 1_000n, 1_000n);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const owner = { userId, tokenId };
      expect(ledger.tryReserve(owner, 10n)).toBeNull(); // no hold yet: reserve() opens one
      const first = await ledger.reserve(owner, 10n, 1_000n);
      const second = ledger.tryReserve(owner, 10n);
      expect(second).not.toBeNull();
      expect(second!.hold).toBe(first.hold);
      expect(ledger.tryReserve(owner, 10_000n)).toBeNull(); // more than the hold has
      await ledger.settle(first, 10n, record(userId, tokenId));
      await ledger.settle(second!, 10n, record(userId, tokenId));
      await ledger.close();
      expect(() => ledger.tryReserve(owner, 1n)).toThrow("ledger closed");
      expect(await balance(t.db, userId)).toBe(980n);
    });

    it("stops at the token's remaining quota and says so", async () => {
      const { userId, tokenId } = await seed(t.db, 10_000n, 250n);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      await ledger.reserve({ userId, tokenId }, 100n, 10_000n);
      await ledger.reserve({ userId, tokenId }, 100n, 10_000n);
      await expect(ledger.reserve({ userId, tokenId }, 100n, 10_000n)).rejects.toMatchObject({ who: "token" });
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(10_000n);
    });

    it("charges usage beyond the reservation in full, below zero, and then refuses until the balance is positive", async () => {
      const { userId, tokenId } = await seed(t.db, 150n, 150n);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const r = await ledger.reserve({ userId, tokenId }, 100n, 150n);
      expect(await ledger.settle(r, 400n, record(userId, tokenId))).toBe(400n);
      await ledger.flush();
      expect(await balance(t.db, userId)).toBe(150n - 400n);
      await expect(ledger.reserve({ userId, tokenId }, 1n, 1n)).rejects.toBeInstanceOf(QuotaShortfall);
      // The user is topped up; the key is still below zero, and says so.
      await t.db.user.update({ where: { id: userId }, data: { quota: { increment: 1000n } } });
      await expect(ledger.reserve({ userId, tokenId }, 1n, 1n)).rejects.toMatchObject({ who: "token" });
      await ledger.close();
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(user.quota).toBe(150n - 400n + 1000n);
      expect(user.used_quota).toBe(400n);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(150n - 400n);
      expect(token.used_quota).toBe(400n);
      expect((await t.db.log.findFirstOrThrow({ where: { user_id: userId } })).quota).toBe(400n);
      const holds = await t.db.quotaHold.findMany({ where: { user_id: userId } });
      expect(holds.map((h) => [h.amount, h.consumed, h.state])).toEqual([[400n, 400n, 1]]);
    });

    it("two settles over their reservations at once, with the balance spent, each pay in full, once", async () => {
      const { userId, tokenId } = await seed(t.db, 200n, null);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const a = await ledger.reserve({ userId, tokenId }, 100n, 100n);
      const b = await ledger.reserve({ userId, tokenId }, 100n, 100n);
      expect(await balance(t.db, userId)).toBe(0n);
      const charged = await Promise.all([ledger.settle(a, 150n, record(userId, tokenId)), ledger.settle(b, 150n, record(userId, tokenId))]);
      expect(charged).toEqual([150n, 150n]);
      await ledger.close();
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(user.quota).toBe(-100n);
      expect(user.used_quota).toBe(300n);
      const holds = await t.db.quotaHold.findMany({ where: { user_id: userId } });
      expect(holds.reduce((n, h) => n + h.consumed, 0n)).toBe(300n);
      expect(holds.map((h) => [h.amount, h.consumed, h.state])).toEqual([[300n, 300n, 1]]);
    });

    it("keeps refreshing a hold whose only request outlives the stale limit, so recovery leaves it alone", async () => {
      const { userId, tokenId } = await seed(t.db, 100_000n, 100_000n);
      // Holds idle after 300 ms, stale after 2 s: a request running 3 s is "long".
      const ledger = new QuotaLedger(t.direct, {
        ...DEFAULT_LEDGER_OPTIONS,
        staleSeconds: 2,
        idleSeconds: 0.3,
        flushIntervalMs: 50,
      });
      ledger.start();
      const r = await ledger.reserve({ userId, tokenId }, 500n, 500n);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await recoverHolds(t.direct, 2)).toBe(0);
      await ledger.settle(r, 420n, record(userId, tokenId));
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(100_000n - 420n);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(100_000n - 420n);
    });

    it("charges the balance directly when a batch finds its hold closed under it, and opens a new hold", async () => {
      const { userId, tokenId } = await seed(t.db, 1_000_000n, 1_000_000n);
      const owner = { userId, tokenId };
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const first = await ledger.reserve(owner, 300n, 1_000_000n); // a lease ahead: the balance is ample
      // This instance stalled past the stale limit; recovery closed its hold and refunded it all.
      await t.db.quotaHold.updateMany({ where: { user_id: userId }, data: { updated_at: 1 } });
      expect(await recoverHolds(t.direct, 60)).toBe(1);
      expect(await balance(t.db, userId)).toBe(1_000_000n);
      await ledger.settle(first, 120n, record(userId, tokenId));
      await ledger.flush();
      expect(await balance(t.db, userId)).toBe(1_000_000n - 120n);
      // The closed hold is out of use: the next request takes a new one.
      const second = await ledger.reserve(owner, 300n, 1_000_000n);
      await ledger.settle(second, 50n, record(userId, tokenId));
      await ledger.close();
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(user.quota).toBe(1_000_000n - 170n);
      expect(user.used_quota).toBe(170n);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(1_000_000n - 170n);
      expect(await t.db.quotaHold.count({ where: { user_id: userId } })).toBe(2);
      expect(await t.db.quotaHold.count({ where: { user_id: userId, state: 0 } })).toBe(0);
    });

    it("writes each open hold's in-flight total, so the balance shown moves by usage, never by the lease", async () => {
      const { userId, tokenId } = await seed(t.db, 1_000_000n, 500_000n);
      const owner = { userId, tokenId };
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const shown = async () => [
        (await withVisibleQuota([await t.db.user.findUniqueOrThrow({ where: { id: userId } })], t.direct))[0]!.quota,
        (await withVisibleRemain([await t.db.token.findUniqueOrThrow({ where: { id: tokenId } })], t.direct))[0]!.remain_quota,
      ];
      for (let i = 0; i < 3; i++) await ledger.settle(await ledger.reserve(owner, 300n, 1_000_000n), 40n, record(userId, tokenId));
      const inFlight = await ledger.reserve(owner, 300n, 1_000_000n);
      await ledger.flush();
      expect(await balance(t.db, userId)).toBeLessThan(1_000_000n - 10_000n); // a lease is out
      expect(await shown()).toEqual([1_000_000n - 120n - 300n, 500_000n - 120n - 300n]);
      await ledger.settle(inFlight, 60n, record(userId, tokenId));
      await ledger.flush();
      expect(await shown()).toEqual([1_000_000n - 180n, 500_000n - 180n]);
      await ledger.close();
      expect(await shown()).toEqual([1_000_000n - 180n, 500_000n - 180n]);
      expect(await balance(t.db, userId)).toBe(1_000_000n - 180n);
    });

    if (kind === "sqlite") {
      // A batch that finds SQLite locked for longer than the connection waits is put back for the
      // next tick. Closing the hold meanwhile would refund its whole amount, since the usage is
      // not yet in `consumed`.
      it("keeps a spent hold open while its usage waits for a failed batch, so the refund stays exact", async () => {
        const { userId, tokenId } = await seed(t.db, 100n, null);
        const impatient = await openDirectDb(kind, t.dsn, { busyWaitMs: 0 });
        onTestFinished(() => impatient.close());
        const ledger = new QuotaLedger(impatient, { ...OPTIONS, flushIntervalMs: 50 });
        const reservation = await ledger.reserve({ userId, tokenId }, 100n, 100n);
        // Another process holds the write lock for a moment: the usage batch fails at once (this
        // connection does not wait).
        const locker = spawn(
          process.execPath,
          [
            "-e",
            `const d = new (require("better-sqlite3"))(${JSON.stringify(t.dsn)}); d.exec("BEGIN IMMEDIATE"); console.log("LOCKED"); setTimeout(() => { d.exec("COMMIT"); d.close(); }, 400);`,
          ],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        await new Promise<void>((resolve) => locker.stdout!.on("data", (d: Buffer) => String(d).includes("LOCKED") && resolve()));
        const exited = new Promise((resolve) => locker.on("exit", resolve));
        expect(await ledger.settle(reservation, 100n, record(userId, tokenId))).toBe(100n); // spends the hold: flush and close are tried now
        await exited;
        ledger.start();
        for (let i = 0; i < 100 && (await t.db.quotaHold.count({ where: { user_id: userId, state: 0 } })) > 0; i++)
          await new Promise((r) => setTimeout(r, 50));
        await ledger.close();
        const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
        expect(user.used_quota).toBe(100n);
        expect(user.quota).toBe(0n);
      });
    }

    it("settles a reservation only once", async () => {
      const { userId } = await seed(t.db, 1000n, null);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const r = await ledger.reserve({ userId, tokenId: 0 }, 100n, 1000n);
      await ledger.settle(r, 60n, record(userId, 0));
      expect(await ledger.settle(r, 60n, record(userId, 0))).toBe(0n);
      await ledger.close();
      expect(await balance(t.db, userId)).toBe(940n);
    });

    it("recovers a crashed instance's holds exactly once", async () => {
      const { userId, tokenId } = await seed(t.db, 5000n, 5000n);
      const crashed = new QuotaLedger(t.direct, OPTIONS);
      const r = await crashed.reserve({ userId, tokenId }, 300n, 5000n);
      await crashed.settle(r, 120n, record(userId, tokenId));
      await crashed.flush();
      await crashed.reserve({ userId, tokenId }, 300n, 5000n); // in flight when the "crash" happens
      // The instance dies here: no close(). Its hold stops being refreshed.
      const held = await balance(t.db, userId);
      expect(held).toBeLessThan(5000n);
      await t.db.quotaHold.updateMany({ where: { user_id: userId }, data: { updated_at: 1 } });
      await Promise.all([recoverHolds(t.direct, 60), recoverHolds(t.direct, 60)]);
      expect(await balance(t.db, userId)).toBe(5000n - 120n);
      const token = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      expect(token.remain_quota).toBe(5000n - 120n);
      const holds = await t.db.quotaHold.findMany({ where: { user_id: userId } });
      expect(holds.every((h) => h.state === 1)).toBe(true);
      expect(await closeHold(t.direct, holds[0]!.id)).toBe(0n);
    });
  });
}
