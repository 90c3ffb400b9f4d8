// The direct connection (lib/db/direct.ts) on each database: one statement text for all three,
// exact quota values, transactions that roll back when a required update misses, and SQLite lock
// waits that leave the event loop free; the WAL checkpoint threshold a relay worker sets, the
// console's checkpoints that copy the WAL into the file for it (whole, so the WAL starts over,
// without waiting for a commit under way), and statement journals kept in memory.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { DbKind } from "@/lib/db";
import { openDirectDb, RELAY_WAL_AUTOCHECKPOINT_PAGES } from "@/lib/db/direct";
import { checkpointEvery, checkpointWal } from "@/lib/db/checkpointer";
import { big, bool, int, str } from "@/lib/db/num";
import { createTestDatabase, readCheckpointed, type TestDatabase } from "@/tests/helpers/databases";

/** Beyond 2^53: a number would lose the last units. */
const HUGE = 9_007_199_254_740_993n;

for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`the direct connection on ${kind}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await t?.drop();
    });

    it("reads and writes quota exactly, and reads every column kind through int, big, bool and str", async () => {
      const user = await t.db.user.create({ data: { username: `x${kind}`, password: "x", quota: HUGE, group: "vip" } });
      await t.db.token.create({ data: { user_id: user.id, key_hash: `h${kind}`, key_enc: "x", unlimited_quota: true } });
      expect(await t.direct.execute("UPDATE users SET quota = quota + ? WHERE id = ?", [HUGE, user.id])).toBe(1);
      const [row] = await t.direct.query('SELECT id, quota, "group", deleted_at FROM users WHERE id = ?', [user.id]);
      expect(int(row!.id)).toBe(user.id);
      expect(big(row!.quota)).toBe(2n * HUGE);
      expect(str(row!.group)).toBe("vip");
      expect(row!.deleted_at).toBeNull();
      const [sum] = await t.direct.query("SELECT SUM(quota) AS total FROM users WHERE id = ?", [user.id]);
      expect(big(sum!.total)).toBe(2n * HUGE);
      const [token] = await t.direct.query("SELECT unlimited_quota, model_limits_enabled FROM tokens WHERE user_id = ?", [user.id]);
      expect([bool(token!.unlimited_quota), bool(token!.model_limits_enabled)]).toEqual([true, false]);
      expect(await t.db.user.findUniqueOrThrow({ where: { id: user.id }, select: { quota: true } })).toEqual({ quota: 2n * HUGE });
    });

    it("rolls a transaction back when a required statement matches no row, and says which", async () => {
      const user = await t.db.user.create({ data: { username: `r${kind}`, password: "x", quota: 100n } });
      const debit = (n: bigint) => ({ sql: "UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?", params: [n, user.id, n] });
      const log = { sql: "INSERT INTO logs (user_id, content) VALUES (?, ?)", params: [user.id, "debited"] };
      expect(await t.direct.transaction([log, { ...debit(500n), required: true }])).toEqual({ failed: 1, missed: [] });
      expect(await t.db.log.count({ where: { user_id: user.id } })).toBe(0);
      expect(await t.direct.transaction([{ ...debit(60n), required: true }, log])).toEqual({ failed: -1, missed: [] });
      expect(await t.db.log.count({ where: { user_id: user.id } })).toBe(1);
      // ifNone: the fallback runs in the same transaction when its statement misses.
      const result = await t.direct.transaction([
        { ...debit(60n), ifNone: [{ sql: "UPDATE users SET quota = 0 WHERE id = ?", params: [user.id] }] },
      ]);
      expect(result).toEqual({ failed: -1, missed: [0] });
      expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(0n);
    });

    it("gives a database error to the caller and writes nothing of the transaction", async () => {
      const user = await t.db.user.create({ data: { username: `e${kind}`, password: "x", quota: 100n } });
      await expect(
        t.direct.transaction([
          { sql: "UPDATE users SET quota = 1 WHERE id = ?", params: [user.id] },
          { sql: "UPDATE no_such_table SET x = 1", params: [] },
        ]),
      ).rejects.toThrow();
      expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(100n);
    });

    if (kind === "sqlite") {
      /** Another process holding SQLite's write lock for `ms`. */
      const holdLock = async (ms: number) => {
        const locker = spawn(
          process.execPath,
          [
            "-e",
            `const d = new (require("better-sqlite3"))(${JSON.stringify(t.dsn)}); d.exec("BEGIN IMMEDIATE"); console.log("LOCKED"); setTimeout(() => { d.exec("COMMIT"); d.close(); }, ${ms});`,
          ],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        onTestFinished(() => void locker.kill());
        await new Promise<void>((resolve) => locker.stdout!.on("data", (d: Buffer) => String(d).includes("LOCKED") && resolve()));
      };

      it("waits for another process's write lock between turns of the event loop, not inside the driver", async () => {
        const user = await t.db.user.create({ data: { username: "busy", password: "x", quota: 100n } });
        await holdLock(400);
        let ticks = 0;
        const timer = setInterval(() => ticks++, 20);
        const started = Date.now();
        const result = await t.direct.transaction([
          { sql: "UPDATE users SET quota = quota - 1 WHERE id = ?", params: [user.id], required: true },
        ]);
        clearInterval(timer);
        expect(result.failed).toBe(-1);
        expect(Date.now() - started).toBeGreaterThanOrEqual(300);
        expect(ticks).toBeGreaterThanOrEqual(8); // the loop ran while it waited
        expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(99n);
      });

      it("sets the connection's WAL checkpoint threshold when asked (a relay worker's leaves checkpoints to the primary)", async () => {
        const pagesOf = async (d: typeof t.direct) => Number((await d.query("PRAGMA wal_autocheckpoint"))[0]!.wal_autocheckpoint);
        expect(await pagesOf(t.direct)).toBe(1000);
        const relay = await openDirectDb("sqlite", t.dsn, { walAutocheckpointPages: RELAY_WAL_AUTOCHECKPOINT_PAGES });
        onTestFinished(() => relay.close());
        expect(await pagesOf(relay)).toBe(RELAY_WAL_AUTOCHECKPOINT_PAGES);
      });

      it("keeps a statement's journal in memory, not in a temporary file (temp_store = MEMORY)", async () => {
        const tempStore = async (d: typeof t.direct) => Number((await d.query("PRAGMA temp_store"))[0]!.temp_store);
        expect(await tempStore(t.direct)).toBe(2);
        const relay = await openDirectDb("sqlite", t.dsn, { walAutocheckpointPages: RELAY_WAL_AUTOCHECKPOINT_PAGES });
        onTestFinished(() => relay.close());
        expect(await tempStore(relay)).toBe(2);
      });

      it("the console's checkpoints copy the WAL into the database file, once a second (here every 50 ms)", async () => {
        const user = await t.db.user.create({ data: { username: "ckpt", password: "x", quota: 100n } });
        const writer = await openDirectDb("sqlite", t.dsn, { walAutocheckpointPages: 0 });
        onTestFinished(() => writer.close());
        // The file without its WAL is the database as of the last checkpoint.
        const quotaInFile = () => readCheckpointed(t.dsn, "SELECT quota FROM users WHERE id = ?", [user.id]);
        expect(await writer.execute("UPDATE users SET quota = 7 WHERE id = ?", [user.id])).toBe(1);
        expect(quotaInFile()).not.toBe(7); // in the WAL only: nothing checkpoints it
        const checkpointer = checkpointEvery(async () => t.direct, 50);
        onTestFinished(() => checkpointer.stop());
        await expect.poll(quotaInFile, { timeout: 5_000 }).toBe(7);
        // Later writes too, while the thread runs on.
        expect(await writer.execute("UPDATE users SET quota = 8 WHERE id = ?", [user.id])).toBe(1);
        await expect.poll(quotaInFile, { timeout: 5_000 }).toBe(8);
      });

      it("a checkpoint copies the whole WAL back and the next commit starts it over; with a commit under way it leaves at once, saying busy", async () => {
        const user = await t.db.user.create({ data: { username: "restart", password: "x", quota: 100n } });
        const writer = await openDirectDb("sqlite", t.dsn, { walAutocheckpointPages: 0 });
        onTestFinished(() => writer.close());
        for (let i = 0; i < 20; i++) await writer.execute("UPDATE users SET quota = ? WHERE id = ?", [i, user.id]);
        // Another process in the middle of a commit: the checkpoint copies what it can and leaves
        // at once, saying it was kept from the rest (PASSIVE would never say so).
        await holdLock(400);
        const started = Date.now();
        expect((await checkpointWal(t.direct)).busy).toBe(true);
        expect(Date.now() - started).toBeLessThan(200);
        await expect.poll(async () => (await checkpointWal(t.direct)).busy, { timeout: 5_000 }).toBe(false);
        const done = await checkpointWal(t.direct);
        expect(done.copied).toBe(done.frames);
        // The WAL was copied back whole, so this commit writes from its beginning again.
        expect(await writer.execute("UPDATE users SET quota = 5 WHERE id = ?", [user.id])).toBe(1);
        const after = await checkpointWal(t.direct);
        expect(after.frames).toBeGreaterThan(0);
        expect(after.frames).toBeLessThan(done.frames);
      });

      it("gives up with SQLITE_BUSY once the lock outlasts its wait", async () => {
        const user = await t.db.user.create({ data: { username: "busy2", password: "x", quota: 100n } });
        const brief = await openDirectDb("sqlite", t.dsn, { busyWaitMs: 100 });
        onTestFinished(() => brief.close());
        await holdLock(1_000);
        await expect(brief.execute("UPDATE users SET quota = 0 WHERE id = ?", [user.id])).rejects.toMatchObject({ code: "SQLITE_BUSY" });
      });
    }
  });
}
