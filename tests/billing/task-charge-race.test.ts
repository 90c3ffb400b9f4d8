// Task charges and refunds from two instances at once (two processes, each with its own
// connections), on SQLite, PostgreSQL and MariaDB: submits racing for a balance that covers only
// some of them never overdraw the user or the key, and refunds racing for the same rows (two
// pollers, a poller and a refused submit) return each charge exactly once.
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { expect, it } from "vitest";
import { describeOnEveryDatabase, race } from "@/tests/helpers/instance-process";

type Job = { kind: "charge"; userId: number; keyId: number; quota: string; requestId: string } | { kind: "refund"; id: number };
type Result = Job & { ok: boolean; id?: number; refunded?: string };

const PRICE = 1_000n;
/** The user can pay for 7 submits; the key for 6 (it runs out first). */
const USER_QUOTA = 7n * PRICE;
const KEY_QUOTA = 6n * PRICE;
const TRIES = 10;

describeOnEveryDatabase(
  (kind) => `task charges and refunds racing on ${kind}`,
  ({ t: db, start }) => {
    it("two instances submitting 10 each against a key good for 6: exactly 6 charged; refunding them 3 times each from both: each returned once", async () => {
      const t = db();
      const tag = Math.random().toString(36).slice(2, 8);
      const user = await t.db.user.create({ data: { username: `race_${tag}`, password: "x", quota: USER_QUOTA } });
      const key = await t.db.token.create({
        data: { user_id: user.id, key_hash: `h-${tag}`, key_enc: "", name: "k", remain_quota: KEY_QUOTA },
      });
      const charges = (n: string): Job[] =>
        Array.from({ length: TRIES }, (_, i) => ({
          kind: "charge",
          userId: user.id,
          keyId: key.id,
          quota: String(PRICE),
          requestId: `${tag}-${n}-${i}`,
        }));
      const charged = await race<Result>([
        start<Result>("task-charge-process.ts", { TASK_JOBS: JSON.stringify(charges("a")) }),
        start<Result>("task-charge-process.ts", { TASK_JOBS: JSON.stringify(charges("b")) }),
      ]);
      const ids = charged.filter((r) => r.ok).map((r) => r.id!);
      expect(ids).toHaveLength(6);
      expect(await t.db.task.count({ where: { user_id: user.id } })).toBe(6);
      expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(USER_QUOTA - 6n * PRICE);
      expect((await t.db.token.findUniqueOrThrow({ where: { id: key.id } })).remain_quota).toBe(0n);

      const refunds = (): Job[] => [...ids, ...ids, ...ids].map((id) => ({ kind: "refund", id }));
      const refunded = await race<Result>([
        start<Result>("task-charge-process.ts", { TASK_JOBS: JSON.stringify(refunds()) }),
        start<Result>("task-charge-process.ts", { TASK_JOBS: JSON.stringify(refunds()) }),
      ]);
      for (const id of ids) {
        const winners = refunded.filter((r) => r.kind === "refund" && r.id === id && r.ok);
        expect(winners, `task ${id}`).toHaveLength(1);
        expect(winners[0]!.refunded).toBe(String(PRICE));
      }
      const u = await t.db.user.findUniqueOrThrow({ where: { id: user.id } });
      expect([u.quota, u.used_quota, u.request_count]).toEqual([USER_QUOTA, 0n, 6]);
      const k = await t.db.token.findUniqueOrThrow({ where: { id: key.id } });
      expect([k.remain_quota, k.used_quota]).toEqual([KEY_QUOTA, 0n]);
      expect(await t.db.log.count({ where: { user_id: user.id, type: 4 } })).toBe(6);
      expect(await t.db.task.count({ where: { user_id: user.id, status: "FAILURE", progress: "100%" } })).toBe(6);
      // Four processes start in turn (tsx compiles each): well past the default 30 s on a busy machine.
    }, 180_000);
  },
);
