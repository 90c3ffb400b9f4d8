// The log's export, retention and cleanup progress, run on SQLite (log-jobs.test.ts) and with the
// whole process on PostgreSQL (log-jobs-pg.test.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { LOG_RETENTION_LEASE_KEY, runLogRetention, deleteExpiredLogs } from "@/lib/logs/retention";
import { cleanupLogs, getCleanupProgress } from "@/lib/logs/query";
import { defaultOptionValues } from "@/lib/options/registry";
import { updateOption } from "@/lib/options";
import { LOG_TYPE } from "@/lib/logs/write";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { parseCsv } from "@/tests/helpers/csv";
import * as adminExport from "@/app/api/log/export/route";
import * as selfExport from "@/app/api/log/self/export/route";
import * as cleanupProgress from "@/app/api/log/cleanup/route";

type Caller = { id: number; cookie: string };
const DAY = 86_400;

/** A response's body as bytes and as the text a spreadsheet reads (BOM kept, so it can be checked). */
async function exportOf(handler: typeof adminExport.GET, path: string, as: Caller) {
  const headers = new Headers({ cookie: as.cookie, "new-api-user": String(as.id) });
  const res = await handler(new Request(`http://localhost${path}`, { headers }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  return { res, bytes, text, rows: parseCsv(text.replace(/^\uFEFF/, "")) };
}

export function logJobCases(kind: string) {
  let admin: Caller;
  let amy: Caller;
  let bob: Caller;
  const now = nowSeconds();
  const base = now - 600;

  beforeAll(async () => {
    admin = await createUser({ username: `xadmin_${kind}`, role: 10 });
    amy = await createUser({ username: `amy_${kind}` });
    bob = await createUser({ username: `bob_${kind}` });
    const db = await getDb();
    const row = (user: Caller & { username?: string }, name: string, i: number, extra: Record<string, unknown> = {}) => ({
      user_id: user.id,
      username: name,
      created_at: base + i,
      type: LOG_TYPE.consume,
      token_name: "main",
      model_name: "gpt-4o",
      channel_id: 3,
      quota: BigInt(100 + i),
      prompt_tokens: 10,
      completion_tokens: 20,
      use_time: 2,
      is_stream: true,
      content: "模型倍率 1.00",
      other: JSON.stringify({ frt: 1500, admin_info: { use_channel: ["3", "7"] } }),
      ...extra,
    });
    await db.log.createMany({
      data: [
        row(amy, `amy_${kind}`, 1, { content: '=HYPERLINK("http://evil")', model_name: "claude-3" }),
        row(amy, `amy_${kind}`, 2, { content: 'He said "hi", then\nleft' }),
        row(amy, `amy_${kind}`, 3, {
          type: LOG_TYPE.topup,
          token_name: "",
          model_name: "",
          quota: 5000n,
          content: "充值 1 美元",
          other: "",
        }),
        row(bob, `bob_${kind}`, 4, { content: "bob's call" }),
      ],
    });
  });

  describe("CSV export", () => {
    it("gives an admin every user's rows of the filter, newest first, as the table's columns", async () => {
      const q = `start_timestamp=${base}&end_timestamp=${now}&tz=Asia/Shanghai`;
      const { res, bytes, rows } = await exportOf(adminExport.GET, `/api/log/export?${q}`, admin);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="logs-\d{8}-\d{6}\.csv"$/);
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(rows[0]).toEqual([
        "时间",
        "渠道",
        "用户",
        "令牌",
        "类型",
        "模型",
        "用时（秒）",
        "首字（秒）",
        "流式",
        "提示",
        "补全",
        "花费（额度）",
        "重试",
        "详情",
      ]);
      const body = rows.slice(1);
      expect(body.map((r) => r[2])).toEqual([`bob_${kind}`, `amy_${kind}`, `amy_${kind}`, `amy_${kind}`]);
      expect(body[0]).toEqual([
        expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        "3",
        `bob_${kind}`,
        "main",
        "消费",
        "gpt-4o",
        "2",
        "1.5",
        "流",
        "10",
        "20",
        "104",
        "渠道：3 → 7",
        "bob's call",
      ]);
      // The top-up row: no tokens or latency, its quota, its type's label.
      expect(body[1]!.slice(4, 12)).toEqual(["充值", "", "", "", "", "", "", "5000"]);
      // Quotes, commas and line breaks survive; a formula is defused.
      expect(body[2]![13]).toBe('He said "hi", then\nleft');
      expect(body[3]![13]).toBe(`'=HYPERLINK("http://evil")`);
    });

    it("applies the list's filters", async () => {
      const only = async (qs: string) =>
        (await exportOf(adminExport.GET, `/api/log/export?start_timestamp=${base}&${qs}`, admin)).rows.slice(1);
      expect((await only(`username=amy_${kind}`)).map((r) => r[2])).toEqual([`amy_${kind}`, `amy_${kind}`, `amy_${kind}`]);
      expect((await only(`type=${LOG_TYPE.topup}`)).map((r) => r[13])).toEqual(["充值 1 美元"]);
      expect((await only("model_name=claude-3")).map((r) => r[5])).toEqual(["claude-3"]);
      expect(await only(`end_timestamp=${base + 2}`)).toHaveLength(2);
    });

    it("gives a user only their own rows, without channel, user or retry columns", async () => {
      const { res, rows } = await exportOf(selfExport.GET, `/api/log/self/export?start_timestamp=${base}&username=bob_${kind}`, amy);
      expect(res.status).toBe(200);
      expect(rows[0]).toEqual(["时间", "令牌", "类型", "模型", "用时（秒）", "首字（秒）", "流式", "提示", "补全", "花费（额度）", "详情"]);
      // The username filter is the admin's: Amy still gets her three rows and nothing of Bob's.
      expect(rows.slice(1).map((r) => r[10])).toEqual(["充值 1 美元", 'He said "hi", then\nleft', `'=HYPERLINK("http://evil")`]);
      expect(rows.flat().join()).not.toContain("bob");
    });

    it("refuses a user the all-users export", async () => {
      const res = await call(adminExport.GET, "GET", "/api/log/export", { as: amy });
      expect(res.status).toBe(403);
      expect(res.json.success).toBe(false);
    });

    it("streams 20 000 rows in batches of at most 1 000, each row once, newest first", async () => {
      const db = await getDb();
      const heavy = await createUser({ username: `heavy_${kind}` });
      const start = now - 10 * DAY;
      for (let i = 0; i < 20_000; i += 2_000) {
        await db.log.createMany({
          data: Array.from({ length: 2_000 }, (_, j) => ({
            user_id: heavy.id,
            username: `heavy_${kind}`,
            // Pairs share a second, so the keyset must order by id within a time.
            created_at: start + Math.floor((i + j) / 2),
            type: LOG_TYPE.consume,
            content: `row ${i + j}`,
          })),
        });
      }
      const headers = new Headers({ cookie: heavy.cookie, "new-api-user": String(heavy.id) });
      const res = await selfExport.GET(
        new Request(`http://localhost/api/log/self/export?start_timestamp=${start}&end_timestamp=${now}`, { headers }),
      );
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let chunks = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const part = decoder.decode(value, { stream: true });
        chunks++;
        // One chunk per batch: never more than 1 000 rows (plus the header in the first).
        expect(part.split("\r\n").length - 1).toBeLessThanOrEqual(1_001);
        text += part;
      }
      expect(chunks).toBeGreaterThanOrEqual(21);
      const contents = parseCsv(text.replace(/^\uFEFF/, ""))
        .slice(1)
        .map((r) => r[10]);
      expect(contents).toHaveLength(20_000);
      expect(contents[0]).toBe("row 19999");
      expect(contents.at(-1)).toBe("row 0");
      expect(new Set(contents).size).toBe(20_000);
    }, 120_000);
  });

  describe("retention", () => {
    it("deletes only the types with a retention, older than their days, in batches", async () => {
      const db = await getDb();
      const who = await createUser({ username: `ret_${kind}` });
      const at = (type: number, daysAgo: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          user_id: who.id,
          username: `ret_${kind}`,
          type,
          created_at: now - daysAgo * DAY - i,
          content: `${type}/${daysAgo}`,
        }));
      await db.log.createMany({
        data: [...at(LOG_TYPE.consume, 40, 23), ...at(LOG_TYPE.consume, 5, 4), ...at(LOG_TYPE.error, 10, 6), ...at(LOG_TYPE.topup, 400, 3)],
      });
      const options = { ...defaultOptionValues().values, LogRetentionConsumeDays: 30, LogRetentionErrorDays: 7 };
      const batches: number[] = [];
      const result = await deleteExpiredLogs(options, now, { batchSize: 5, pauseMs: 0, onBatch: (d) => batches.push(d) });
      expect(result.map(({ type, deleted }) => ({ type, deleted }))).toEqual([
        { type: LOG_TYPE.consume, deleted: 23 },
        { type: LOG_TYPE.error, deleted: 6 },
      ]);
      // 23 consumption rows in statements of at most 5 (5, 10, 15, 20, 23), then the 6 error rows (5, 6).
      expect(batches).toEqual([5, 10, 15, 20, 23, 5, 6]);
      const left = await db.log.groupBy({
        by: ["content"],
        where: { user_id: who.id },
        _count: { _all: true },
        orderBy: { content: "asc" },
      });
      expect(left.map((g) => [g.content, g._count._all])).toEqual([
        [`${LOG_TYPE.topup}/400`, 3],
        [`${LOG_TYPE.consume}/5`, 4],
      ]);
    });

    it("keeps everything with the defaults (0 days)", async () => {
      const db = await getDb();
      const before = await db.log.count();
      expect(await deleteExpiredLogs(defaultOptionValues().values, now + 1000 * DAY)).toEqual([]);
      expect(await db.log.count()).toBe(before);
    });

    it("runs once a day on one instance; racing runs delete each row once", async () => {
      const db = await getDb();
      const who = await createUser({ username: `race_${kind}` });
      await db.log.createMany({
        data: Array.from({ length: 60 }, (_, i) => ({
          user_id: who.id,
          username: `race_${kind}`,
          type: LOG_TYPE.system,
          created_at: now - 90 * DAY - i,
          content: "old",
        })),
      });
      await updateOption("LogRetentionSystemDays", "60");
      try {
        // Without the lease (two instances that both think they won): the counts still add up.
        const options = { ...defaultOptionValues().values, LogRetentionSystemDays: 60 };
        const [a, b] = await Promise.all([
          deleteExpiredLogs(options, now, { batchSize: 7, pauseMs: 1 }),
          deleteExpiredLogs(options, now, { batchSize: 7, pauseMs: 1 }),
        ]);
        expect(a[0]!.deleted + b[0]!.deleted).toBe(60);
        expect(await db.log.count({ where: { user_id: who.id } })).toBe(0);

        await db.log.createMany({
          data: Array.from({ length: 30 }, (_, i) => ({
            user_id: who.id,
            username: `race_${kind}`,
            type: LOG_TYPE.system,
            created_at: now - 90 * DAY - i,
            content: "old",
          })),
        });
        const ms = Date.now() + 1000 * DAY * 1000; // past any lease an earlier run left
        const runs = await Promise.all([
          runLogRetention({ holder: "one", now: ms, batchSize: 7, pauseMs: 1 }),
          runLogRetention({ holder: "two", now: ms, batchSize: 7, pauseMs: 1 }),
        ]);
        const ran = runs.filter((r) => r !== null);
        expect(ran).toHaveLength(1);
        expect(ran[0]!.find((r) => r.type === LOG_TYPE.system)?.deleted).toBe(30);
        expect(await db.log.count({ where: { user_id: who.id } })).toBe(0);
        const lease = await db.option.findUnique({ where: { key: LOG_RETENTION_LEASE_KEY } });
        expect(lease?.value).toMatch(/^(one|two)@\d+$/);
        // The same day, neither runs again (nor the winner); the next day one does.
        expect(await runLogRetention({ holder: "one", now: ms + 3_600_000 })).toBeNull();
        expect(await runLogRetention({ holder: "two", now: ms + 3_600_000 })).toBeNull();
        expect(await runLogRetention({ holder: "two", now: ms + DAY * 1000 + 1 })).not.toBeNull();
      } finally {
        await updateOption("LogRetentionSystemDays", "0");
      }
    });
  });

  describe("cleanup progress", () => {
    it("counts the batches of a running cleanup and answers its total at the end", async () => {
      const db = await getDb();
      const cutoff = now - 500 * DAY;
      await db.log.createMany({
        data: Array.from({ length: 30 }, (_, i) => ({
          type: LOG_TYPE.consume,
          username: "ancient",
          created_at: cutoff - 100 - i,
          content: "",
        })),
      });
      const root = await db.user.findUniqueOrThrow({ where: { username: "root" } });
      const by = { actor: { id: root.id, username: "root" }, ip: "127.0.0.1" };
      const seen: number[] = [];
      const running = cleanupLogs(cutoff, by, { batchSize: 4, pauseMs: 15 });
      // Read the progress as the settings page does while the DELETE runs.
      for (let i = 0; i < 200 && getCleanupProgress().running; i++) {
        const p = getCleanupProgress();
        expect(p.total).toBeGreaterThanOrEqual(p.deleted);
        if (p.total > 0) seen.push(p.deleted);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await running).toBe(30);
      expect(seen.some((d) => d > 0 && d < 30)).toBe(true);
      expect([...seen].sort((x, y) => x - y)).toEqual(seen);
      const done = await call(cleanupProgress.GET, "GET", "/api/log/cleanup", {
        as: { id: root.id, cookie: await sessionCookieFor(root.id) },
      });
      expect(done.json.data).toEqual({ running: false, before: cutoff, total: 30, deleted: 30 });
    });

    it("refuses a second cleanup while one runs, and the progress to a non-root", async () => {
      const db = await getDb();
      const cutoff = now - 600 * DAY;
      await db.log.createMany({
        data: Array.from({ length: 12 }, (_, i) => ({
          type: LOG_TYPE.consume,
          username: "ancient",
          created_at: cutoff - 1 - i,
          content: "",
        })),
      });
      const by = { actor: { id: admin.id, username: "x" }, ip: "127.0.0.1" };
      const first = cleanupLogs(cutoff, by, { batchSize: 2, pauseMs: 10 });
      await expect(cleanupLogs(cutoff, by)).rejects.toMatchObject({ status: 409 });
      expect(await first).toBe(12);
      expect((await call(cleanupProgress.GET, "GET", "/api/log/cleanup", { as: admin })).status).toBe(403);
    });
  });
}
