// One code, many redeemers at once, on SQLite, PostgreSQL and MariaDB: two processes (two
// instances, each with its own connections) and two users in each, all trying every code at the
// same moment. Each code is credited exactly once, to the user it records, with one log row.
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { seal } from "@/lib/crypto/secret-box";
import { generateRedemptionKey, hashRedemptionKey, redemptionKeyHint } from "@/lib/redemptions/keys";
import { describeOnEveryDatabase, type RaceDatabase, race } from "@/tests/helpers/instance-process";

type Job = { userId: number; username: string; key: string };
type Result = Job & { ok: boolean; quota: number; message: string };

/** A redeeming process (tests/fixtures/redeem-process.ts) on the given database. */
const startRedeemer = (start: RaceDatabase["start"], jobs: Job[]) =>
  start<Result>("redeem-process.ts", { REDEEM_JOBS: JSON.stringify(jobs) });

async function seedUsers(db: Db, n: number) {
  const users = [];
  for (let i = 0; i < n; i++) {
    const username = `race${i}_${Math.random().toString(36).slice(2, 8)}`;
    const u = await db.user.create({ data: { username, password: "x" } });
    users.push({ userId: u.id, username });
  }
  return users;
}

async function seedCodes(db: Db, n: number) {
  const codes = [];
  for (let i = 0; i < n; i++) {
    const key = generateRedemptionKey();
    const quota = 1000 + i;
    const row = await db.redemption.create({
      data: { key_hash: hashRedemptionKey(key), key_enc: seal(key), key_hint: redemptionKeyHint(key), name: "race", quota: BigInt(quota) },
    });
    codes.push({ id: row.id, key, quota });
  }
  return codes;
}

const CODES = 8;

describeOnEveryDatabase(
  (kind) => `redeeming on ${kind}`,
  ({ t: db, start }) => {
    it("two instances, two users each, every code at once: each code credits exactly once, with one log row", async () => {
      const t = db();
      const users = await seedUsers(t.db, 4);
      const codes = await seedCodes(t.db, CODES);
      const jobsOf = (who: typeof users) => codes.flatMap((c) => who.map((u) => ({ ...u, key: c.key })));
      const results = await race([startRedeemer(start, jobsOf(users.slice(0, 2))), startRedeemer(start, jobsOf(users.slice(2)))]);

      expect(results).toHaveLength(CODES * users.length);
      const won = results.filter((r) => r.ok);
      expect(won).toHaveLength(CODES);
      for (const r of results.filter((x) => !x.ok)) expect(r.message).toBe("该兑换码已被使用");

      const logs = await t.db.log.findMany({ where: { type: 1 } });
      expect(logs).toHaveLength(CODES);
      for (const code of codes) {
        const winners = won.filter((r) => r.key === code.key);
        expect(winners).toHaveLength(1);
        expect(winners[0]!.quota).toBe(code.quota);
        const row = await t.db.redemption.findUniqueOrThrow({ where: { id: code.id } });
        expect(row).toMatchObject({ status: 3, used_user_id: winners[0]!.userId });
        expect(row.redeemed_time).toBeGreaterThan(0);
        const logged = logs.filter((l) => l.content.endsWith(`兑换码ID ${code.id}`));
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatchObject({ user_id: winners[0]!.userId, quota: BigInt(code.quota) });
      }
      for (const u of users) {
        const credited = won.filter((r) => r.userId === u.userId).reduce((sum, r) => sum + r.quota, 0);
        const row = await t.db.user.findUniqueOrThrow({ where: { id: u.userId } });
        expect(row.quota).toBe(BigInt(credited));
      }
      const total = codes.reduce((sum, c) => sum + c.quota, 0);
      const sum = await t.db.user.aggregate({ where: { id: { in: users.map((u) => u.userId) } }, _sum: { quota: true } });
      expect(sum._sum.quota).toBe(BigInt(total));
    });
  },
);
