// The task framework's money (lib/tasks/charge.ts) and the poller's lease, on SQLite, PostgreSQL
// and MariaDB: a submit is charged with its row in one transaction or not at all, an accepted one
// adds its channel's total and its log row, a refund returns exactly what was charged to the user
// and the key once, and a finished or failed row never changes again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbKind } from "@/lib/db";
import type { LogRow } from "@/lib/logs/insert";
import { acceptTask, chargeTask, refundTask, updateTask } from "@/lib/tasks/charge";
import { claimPollLease, LEASE_MS } from "@/lib/tasks/poller";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const logOf = (userId: number, requestId: string, quota: bigint): LogRow => ({
  user_id: userId,
  created_at: Math.floor(Date.now() / 1000),
  type: 2,
  content: "模型价格 0.1，分组倍率 1，操作 MUSIC，ID t1",
  username: "u",
  token_name: "k",
  model_name: "suno_music",
  quota,
  prompt_tokens: 0,
  completion_tokens: 0,
  use_time: 1,
  is_stream: false,
  channel_id: 0,
  token_id: 0,
  group: "default",
  request_id: requestId,
  other: "",
});

for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`task charges and refunds on ${kind}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await t?.drop();
    });

    async function seed(quota: bigint, remain: bigint | null) {
      const tag = Math.random().toString(36).slice(2, 10);
      const user = await t.db.user.create({ data: { username: `tc_${tag}`, password: "x", quota } });
      const token = await t.db.token.create({
        data: {
          user_id: user.id,
          key_hash: `hash-${tag}`,
          key_enc: "",
          name: `k_${tag}`,
          remain_quota: remain ?? 0n,
          unlimited_quota: remain === null,
        },
      });
      const channel = await t.db.channel.create({ data: { type: 36, key: "k", name: `c_${tag}`, models: "suno_music" } });
      return { user, token, channel, tag };
    }
    const money = async (userId: number, tokenId: number, channelId: number) => {
      const u = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      const k = await t.db.token.findUniqueOrThrow({ where: { id: tokenId } });
      const c = await t.db.channel.findUniqueOrThrow({ where: { id: channelId } });
      return {
        quota: u.quota,
        used: u.used_quota,
        count: u.request_count,
        remain: k.remain_quota,
        keyUsed: k.used_quota,
        channelUsed: c.used_quota,
      };
    };

    it("charges a submit with its row, accepts it with the channel's total and the log row, and refunds it once", async () => {
      const { user, token, channel, tag } = await seed(10_000n, 5_000n);
      const charged = await chargeTask(
        {
          table: "tasks",
          requestId: `req-${tag}`,
          userId: user.id,
          keyId: token.id,
          keyLimited: true,
          channelId: channel.id,
          quota: 3_000n,
          columns: { platform: "suno", action: "MUSIC", submit_time: Date.now(), progress: "0%" },
        },
        t.direct,
      );
      expect(charged.ok).toBe(true);
      const id = charged.ok ? charged.id : 0;
      expect(await money(user.id, token.id, channel.id)).toEqual({
        quota: 7_000n,
        used: 3_000n,
        count: 1,
        remain: 2_000n,
        keyUsed: 3_000n,
        channelUsed: 0n,
      });
      const row = await t.db.task.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({
        status: "",
        quota: 3_000n,
        token_id: token.id,
        token_quota: 3_000n,
        user_id: user.id,
        request_id: `req-${tag}`,
        action: "MUSIC",
      });

      expect(
        await acceptTask(
          "tasks",
          id,
          { channelId: channel.id, quota: 3_000n, columns: { task_id: `v-${tag}`, status: "SUBMITTED" } },
          logOf(user.id, `req-${tag}`, 3_000n),
          t.direct,
        ),
      ).toBe(true);
      expect((await money(user.id, token.id, channel.id)).channelUsed).toBe(3_000n);
      expect(await t.db.log.count({ where: { request_id: `req-${tag}`, type: 2 } })).toBe(1);
      // Accepted once: a second answer for the same row changes nothing.
      expect(
        await acceptTask(
          "tasks",
          id,
          { channelId: channel.id, quota: 3_000n, columns: { status: "SUBMITTED" } },
          logOf(user.id, `req-${tag}`, 3_000n),
          t.direct,
        ),
      ).toBe(false);
      expect(await t.db.log.count({ where: { request_id: `req-${tag}` } })).toBe(1);

      expect(await updateTask("tasks", id, { status: "IN_PROGRESS", progress: "40%" }, t.direct)).toBe(true);
      const refunded = await refundTask("tasks", id, { reason: "boom", logContent: (q) => `异步任务执行失败 boom，补偿 ${q}` }, t.direct);
      expect(refunded).toBe(3_000n);
      expect(await refundTask("tasks", id, { reason: "again", logContent: (q) => `again ${q}` }, t.direct)).toBeNull();
      expect(await money(user.id, token.id, channel.id)).toEqual({
        quota: 10_000n,
        used: 0n,
        count: 1,
        remain: 5_000n,
        keyUsed: 0n,
        channelUsed: 0n,
      });
      expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({
        status: "FAILURE",
        progress: "100%",
        fail_reason: "boom",
      });
      const system = await t.db.log.findMany({ where: { request_id: `req-${tag}`, type: 4 } });
      expect(system.map((l) => [l.content, l.quota])).toEqual([["异步任务执行失败 boom，补偿 3000", 3_000n]]);
      // A failed row never moves again.
      expect(await updateTask("tasks", id, { status: "SUCCESS", progress: "100%" }, t.direct)).toBe(false);
    });

    it("refuses a charge the user or the key cannot cover and writes nothing", async () => {
      const { user, token, channel, tag } = await seed(1_000n, 5_000n);
      const base = {
        table: "midjourneys" as const,
        keyId: token.id,
        keyLimited: true,
        channelId: channel.id,
        columns: { action: "IMAGINE", submit_time: 1 },
      };
      expect(await chargeTask({ ...base, requestId: `u-${tag}`, userId: user.id, quota: 1_001n }, t.direct)).toEqual({
        ok: false,
        shortfall: "user",
      });
      await t.db.user.update({ where: { id: user.id }, data: { quota: 100_000n } });
      expect(await chargeTask({ ...base, requestId: `k-${tag}`, userId: user.id, quota: 5_001n }, t.direct)).toEqual({
        ok: false,
        shortfall: "token",
      });
      expect(await t.db.midjourney.count({ where: { request_id: { in: [`u-${tag}`, `k-${tag}`] } } })).toBe(0);
      expect(await money(user.id, token.id, channel.id)).toMatchObject({ quota: 100_000n, used: 0n, count: 0, remain: 5_000n });
    });

    it("charges nothing for a free task, whatever the balance, and an unlimited key only counts its use", async () => {
      const { user, token, channel, tag } = await seed(0n, null);
      const free = await chargeTask(
        {
          table: "midjourneys",
          requestId: `f-${tag}`,
          userId: user.id,
          keyId: token.id,
          keyLimited: false,
          channelId: channel.id,
          quota: 0n,
          columns: { action: "INPAINT" },
        },
        t.direct,
      );
      expect(free.ok).toBe(true);
      await t.db.user.update({ where: { id: user.id }, data: { quota: 500n } });
      const paid = await chargeTask(
        {
          table: "midjourneys",
          requestId: `p-${tag}`,
          userId: user.id,
          keyId: token.id,
          keyLimited: false,
          channelId: channel.id,
          quota: 500n,
          columns: { action: "IMAGINE" },
        },
        t.direct,
      );
      expect(paid.ok).toBe(true);
      expect(await money(user.id, token.id, channel.id)).toMatchObject({ quota: 0n, used: 500n, count: 2, keyUsed: 500n });
      // Refused by the vendor before acceptance: the charge comes back, no log row, the channel untouched.
      expect(await refundTask("midjourneys", paid.ok ? paid.id : 0, { reason: "queue full" }, t.direct)).toBe(500n);
      expect(await money(user.id, token.id, channel.id)).toMatchObject({ quota: 500n, used: 0n, count: 2, keyUsed: 0n, channelUsed: 0n });
      expect(await t.db.log.count({ where: { user_id: user.id } })).toBe(0);
    });

    it("never refunds a finished task", async () => {
      const { user, token, channel, tag } = await seed(1_000n, null);
      const c = await chargeTask(
        {
          table: "tasks",
          requestId: `s-${tag}`,
          userId: user.id,
          keyId: token.id,
          keyLimited: false,
          channelId: channel.id,
          quota: 400n,
          columns: { platform: "suno" },
        },
        t.direct,
      );
      const id = c.ok ? c.id : 0;
      await acceptTask("tasks", id, { channelId: channel.id, quota: 400n, columns: { status: "SUBMITTED", task_id: "x" } }, null, t.direct);
      expect(await updateTask("tasks", id, { status: "SUCCESS", progress: "100%" }, t.direct)).toBe(true);
      expect(await refundTask("tasks", id, { reason: "late failure" }, t.direct)).toBeNull();
      expect(await money(user.id, token.id, channel.id)).toMatchObject({ quota: 600n, used: 400n, channelUsed: 400n });
      await expect(updateTask("tasks", id, { status: "FAILURE" }, t.direct)).rejects.toThrow(/refundTask/);
    });

    it("gives the poll lease to one holder at a time, renews it for its holder, and frees it when it runs out", async () => {
      const now = Date.now();
      const [a, b] = await Promise.all([claimPollLease("a", now, t.direct), claimPollLease("b", now, t.direct)]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const holder = a ? "a" : "b";
      const other = a ? "b" : "a";
      expect(await claimPollLease(other, now + 1_000, t.direct)).toBe(false);
      expect(await claimPollLease(holder, now + 1_000, t.direct)).toBe(true);
      expect(await claimPollLease(other, now + 1_000 + LEASE_MS - 1, t.direct)).toBe(false);
      expect(await claimPollLease(other, now + 1_001 + LEASE_MS, t.direct)).toBe(true);
      expect(await claimPollLease(holder, now + 2_000 + LEASE_MS, t.direct)).toBe(false);
    });
  });
}
