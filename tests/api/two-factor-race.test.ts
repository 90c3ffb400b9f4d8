// One two-factor code, tried at the same moment by two instances (two processes, each with its own
// connections, two tries each), on SQLite, PostgreSQL and MariaDB: a TOTP code passes exactly
// once (the conditional UPDATE of last_step), and so does a backup code (the compare-and-swap of
// the stored list), while a second backup code used at the same time passes too.
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { generate, generateSecret } from "otplib";
import { expect, it } from "vitest";
import { storedBackupCodes, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { seal } from "@/lib/crypto/secret-box";
import type { TestDatabase } from "@/tests/helpers/databases";
import { describeOnEveryDatabase, type RaceDatabase, race } from "@/tests/helpers/instance-process";

type Job = { userId: number; code: string; ip: string };
type Result = Job & { ok: boolean; used: string | null; message: string };

/** A checking process (tests/fixtures/second-factor-process.ts) on the given database. */
const startChecker = (start: RaceDatabase["start"], jobs: Job[]) =>
  start<Result>("second-factor-process.ts", { CODE_JOBS: JSON.stringify(jobs) });

/** A user with two-factor on: its secret and backup codes, seeded straight into the test database. */
async function seedUser(t: TestDatabase, name: string, backup: string[]) {
  const user = await t.db.user.create({ data: { username: `${name}_${Math.random().toString(36).slice(2, 8)}`, password: "x" } });
  const secret = generateSecret();
  await t.direct.execute(
    "INSERT INTO two_factors (user_id, secret_enc, enabled, backup_codes, last_step, created_at, enabled_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [user.id, seal(secret), true, storedBackupCodes(backup), 0, 1, 1],
  );
  return { id: user.id, secret };
}

const TRIES = 2;

describeOnEveryDatabase(
  (kind) => `two-factor codes racing on ${kind}`,
  ({ t: db, start }) => {
    it("two instances try one TOTP code and one backup code at once: each passes once; another backup code passes too", async () => {
      const t = db();
      const totpUser = await seedUser(t, "totp", ["AAAA-BBBB"]);
      const backupUser = await seedUser(t, "backup", ["CCCC-DDDD", "EEEE-FFFF"]);
      const code = await generate({ secret: totpUser.secret });
      const jobsOf = (instance: number): Job[] =>
        Array.from({ length: TRIES }, (_, i) => [
          { userId: totpUser.id, code, ip: `10.${instance}.${i}.1` },
          { userId: backupUser.id, code: "CCCC-DDDD", ip: `10.${instance}.${i}.2` },
        ]).flat();
      const results = await race([
        startChecker(start, jobsOf(1)),
        startChecker(start, [...jobsOf(2), { userId: backupUser.id, code: "eeeeffff", ip: "10.2.9.9" }]),
      ]);

      const totp = results.filter((r) => r.userId === totpUser.id);
      expect(totp).toHaveLength(2 * TRIES);
      expect(totp.filter((r) => r.ok)).toHaveLength(1);
      expect(totp.find((r) => r.ok)!.used).toBe("totp");
      for (const r of totp.filter((x) => !x.ok)) expect(r.message).toBe(TWO_FACTOR_MSG.wrongCode);

      const sameBackup = results.filter((r) => r.userId === backupUser.id && r.code === "CCCC-DDDD");
      expect(sameBackup.filter((r) => r.ok)).toHaveLength(1);
      for (const r of sameBackup.filter((x) => !x.ok)) expect(r.message).toBe(TWO_FACTOR_MSG.wrongCode);
      expect(results.find((r) => r.code === "eeeeffff")).toMatchObject({ ok: true, used: "backup" });

      const [row] = await t.direct.query("SELECT backup_codes FROM two_factors WHERE user_id = ?", [backupUser.id]);
      expect(JSON.parse(String(row!.backup_codes))).toEqual([]);
    });
  },
);
