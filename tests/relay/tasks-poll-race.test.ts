// Two instances polling the same tasks at once, on SQLite, PostgreSQL and MariaDB: two processes
// (each with its own database connections) each run three rounds of pollTasksOnce at the same time
// against a Suno-API on loopback that fails some tasks and finishes the others. Every failed task is
// refunded exactly once (user and key balances, one 异步任务执行失败 row each), every success is
// finished once. And the poll lease: of several instances claiming it at once exactly one holds it,
// and another takes it once it has run out.
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { claimPollLease, LEASE_MS, type PollSummary } from "@/lib/tasks/poller";
import { describeOnEveryDatabase, race } from "@/tests/helpers/instance-process";
import { startSunoMock, SUNO_FAIL_REASON, type SunoMock } from "@/tests/mocks/suno";

const KEY = "suno-race-key";
const QUOTA = 50_000n;
const USER_QUOTA = 10_000_000n;
const KEY_QUOTA = 1_000_000n;
/** Per user: tasks Suno fails, and tasks it finishes. */
const FAILING = 12;
const SUCCEEDING = 4;

type Round = Omit<PollSummary, "refunded"> & { refunded: string };

describeOnEveryDatabase(
  (kind) => `two task pollers on ${kind}`,
  ({ t: db, start }) => {
    let mock: SunoMock;
    beforeAll(async () => {
      mock = await startSunoMock(KEY);
    });
    afterAll(async () => {
      await mock.close();
    });

    it("three rounds at once in each of two instances: each failed task refunded once to its user and key, each success finished once", async () => {
      const t = db();
      const tag = randomBytes(3).toString("hex");
      const channel = await t.db.channel.create({
        data: {
          type: 36,
          name: `suno-${tag}`,
          key: KEY,
          base_url: mock.url,
          models: "suno_music",
          group: "default",
          address_by_root: true,
        },
      });
      const perUser = BigInt(FAILING + SUCCEEDING) * QUOTA;
      const users = [];
      for (let u = 0; u < 2; u++) {
        // Balances as they are after the accepted submits charged them.
        const user = await t.db.user.create({
          data: { username: `racer${u}_${tag}`, password: "x", quota: USER_QUOTA - perUser, used_quota: perUser },
        });
        const token = await t.db.token.create({
          data: {
            user_id: user.id,
            key_hash: randomBytes(16).toString("hex"),
            key_enc: "x",
            name: "k",
            remain_quota: KEY_QUOTA - perUser,
            used_quota: perUser,
          },
        });
        const tasks = [];
        for (let i = 0; i < FAILING + SUCCEEDING; i++) {
          const outcome = i < FAILING ? "failure" : "success";
          const vendorId = `${outcome}-${u}-${i}-${tag}`;
          mock.addTask(vendorId, outcome);
          tasks.push(
            await t.db.task.create({
              data: {
                task_id: vendorId,
                platform: "suno",
                action: "MUSIC",
                status: "NOT_START",
                progress: "0%",
                user_id: user.id,
                channel_id: channel.id,
                token_id: token.id,
                token_quota: QUOTA,
                quota: QUOTA,
                submit_time: BigInt(Date.now()),
                request_id: `req-${vendorId}`,
              },
            }),
          );
        }
        users.push({ user, token, tasks });
      }
      await t.db.channel.update({ where: { id: channel.id }, data: { used_quota: 2n * perUser } });

      const poller = () => start<Round>("task-poll-process.ts", { TASK_POLL_JOB: JSON.stringify({ kind: "poll", rounds: 3 }) });
      const rounds = await race([poller(), poller()]);

      expect(rounds).toHaveLength(6);
      const failedTasks = 2 * FAILING;
      expect(rounds.reduce((n, r) => n + r.failed, 0)).toBe(failedTasks);
      expect(rounds.reduce((n, r) => n + r.finished, 0)).toBe(2 * SUCCEEDING);
      expect(rounds.reduce((n, r) => n + BigInt(r.refunded), 0n)).toBe(BigInt(failedTasks) * QUOTA);

      const refunds = await t.db.log.findMany({ where: { type: 4 } });
      for (const { user, token, tasks } of users) {
        const spent = BigInt(SUCCEEDING) * QUOTA;
        const u = await t.db.user.findUniqueOrThrow({ where: { id: user.id } });
        expect([u.quota, u.used_quota]).toEqual([USER_QUOTA - spent, spent]);
        const k = await t.db.token.findUniqueOrThrow({ where: { id: token.id } });
        expect([k.remain_quota, k.used_quota]).toEqual([KEY_QUOTA - spent, spent]);
        for (const task of tasks) {
          const row = await t.db.task.findUniqueOrThrow({ where: { id: task.id } });
          const logs = refunds.filter((l) => l.request_id === task.request_id);
          if (task.task_id.startsWith("failure")) {
            expect(row).toMatchObject({ status: "FAILURE", progress: "100%", fail_reason: SUNO_FAIL_REASON });
            expect(logs.map((l) => [l.user_id, l.content, l.quota])).toEqual([
              [user.id, `异步任务执行失败 ${SUNO_FAIL_REASON}，补偿 ${QUOTA}`, QUOTA],
            ]);
          } else {
            expect(row).toMatchObject({ status: "SUCCESS", progress: "100%", fail_reason: "" });
            expect(JSON.parse(row.data)[0].status).toBe("complete");
            expect(logs).toEqual([]);
          }
        }
      }
      expect(refunds).toHaveLength(failedTasks);
      const ch = await t.db.channel.findUniqueOrThrow({ where: { id: channel.id } });
      expect(ch.used_quota).toBe(2n * BigInt(SUCCEEDING) * QUOTA);
    });

    it("the poll lease: of six holders claiming it at once exactly one wins; another takes it only once it has run out", async () => {
      const t = db();
      const now = Date.now();
      const claimer = (side: string) =>
        start<{ holder: string; won: boolean }>("task-poll-process.ts", {
          TASK_POLL_JOB: JSON.stringify({ kind: "lease", holders: [1, 2, 3].map((n) => `${side}${n}`), now }),
        });
      const claims = await race([claimer("a"), claimer("b")]);

      expect(claims).toHaveLength(6);
      const winners = claims.filter((c) => c.won);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.holder;
      const other = claims.find((c) => !c.won)!.holder;
      expect(await claimPollLease(other, now + LEASE_MS - 1, t.direct)).toBe(false);
      // The holder renews its own lease.
      expect(await claimPollLease(winner, now + 1000, t.direct)).toBe(true);
      expect(await claimPollLease(other, now + 1000 + LEASE_MS - 1, t.direct)).toBe(false);
      expect(await claimPollLease(other, now + 1000 + LEASE_MS + 1, t.direct)).toBe(true);
      expect(await claimPollLease(winner, now + 1000 + LEASE_MS + 2, t.direct)).toBe(false);
    });
  },
);
