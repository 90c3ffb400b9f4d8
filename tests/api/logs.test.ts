import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { deleteLogsBefore } from "@/lib/logs/query";
import { nowSeconds } from "@/lib/db/num";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import * as logs from "@/app/api/log/route";
import * as selfLogs from "@/app/api/log/self/route";
import * as stat from "@/app/api/log/stat/route";
import * as selfStat from "@/app/api/log/self/stat/route";

type Caller = { id: number; cookie: string };
let root: Caller;
let admin: Caller;
let ann: Caller;
let ben: Caller;
const now = nowSeconds();
const HOUR = 3600;

type Seed = {
  user: "ann" | "ben";
  type: number;
  ago: number;
  token?: string;
  model?: string;
  channel?: number;
  quota?: number;
  prompt?: number;
  completion?: number;
  content?: string;
};

// Ann and Ben's history: consumption (2), a top-up (1), an admin edit (3), a system row (4).
const SEEDS: Seed[] = [
  { user: "ann", type: 2, ago: 10, token: "ann-main", model: "gpt-4o", channel: 1, quota: 100, prompt: 10, completion: 20 },
  { user: "ann", type: 2, ago: 30, token: "ann-main", model: "gpt-4o-mini", channel: 2, quota: 50, prompt: 5, completion: 5 },
  { user: "ann", type: 2, ago: 2 * HOUR, token: "ann-side", model: "gpt-4o", channel: 1, quota: 400, prompt: 100, completion: 100 },
  { user: "ann", type: 1, ago: 3 * HOUR, quota: 5000, content: "充值" },
  { user: "ann", type: 3, ago: 4 * HOUR, content: "管理员将用户额度从 a修改为 b" },
  { user: "ben", type: 2, ago: 20, token: "ben-main", model: "gpt-4o", channel: 2, quota: 70, prompt: 7, completion: 3 },
  { user: "ben", type: 2, ago: 40 * 24 * HOUR, token: "ben-main", model: "claude-3", channel: 3, quota: 900, prompt: 1, completion: 1 },
  { user: "ben", type: 4, ago: 50 * 24 * HOUR, content: "新用户注册赠送" },
];

beforeAll(async () => {
  const db = await getDb();
  const r = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: r.id, cookie: await sessionCookieFor(r.id) };
  admin = await createUser({ username: "ladmin", role: 10 });
  ann = await createUser({ username: "ann" });
  ben = await createUser({ username: "ben" });
  const ids = { ann: ann.id, ben: ben.id };
  for (const s of SEEDS) {
    await db.log.create({
      data: {
        user_id: ids[s.user],
        username: s.user,
        created_at: now - s.ago,
        type: s.type,
        token_name: s.token ?? "",
        model_name: s.model ?? "",
        channel_id: s.channel ?? 0,
        quota: BigInt(s.quota ?? 0),
        prompt_tokens: s.prompt ?? 0,
        completion_tokens: s.completion ?? 0,
        use_time: 2,
        is_stream: s.type === 2,
        content: s.content ?? "模型倍率 1.00，补全倍率 1.00，分组倍率 1.00",
        other:
          s.type === 2
            ? JSON.stringify({ model_ratio: 1, group_ratio: 1, frt: 120, admin_info: { use_channel: [String(s.channel)] } })
            : "",
      },
    });
  }
});

type Item = Record<string, unknown> & { type: number; username: string; created_at: number };

async function adminItems(qs = "", as: Caller = admin): Promise<Item[]> {
  const res = await call(logs.GET, "GET", `/api/log/?page_size=100&${qs}`, { as });
  expect(res.json.success).toBe(true);
  return res.json.data.items;
}

async function selfItems(as: Caller, qs = ""): Promise<Item[]> {
  const res = await call(selfLogs.GET, "GET", `/api/log/self/?page_size=100&${qs}`, { as });
  expect(res.json.success).toBe(true);
  return res.json.data.items;
}

const SPEC_FIELDS = [
  "created_at",
  "type",
  "channel",
  "username",
  "user_id",
  "token_name",
  "model_name",
  "use_time",
  "is_stream",
  "prompt_tokens",
  "completion_tokens",
  "quota",
  "content",
  "other",
];

describe("the admin log", () => {
  it("lists every user's rows, newest first by time, with the spec fields and ids", async () => {
    const res = await call(logs.GET, "GET", "/api/log/?p=0&page_size=100", { as: admin });
    expect(res.json.data).toMatchObject({ page: 0, page_size: 100, total: SEEDS.length });
    const items: Item[] = res.json.data.items;
    expect(items).toHaveLength(SEEDS.length);
    // Newest first by time (the seeds were not inserted in time order), then by id.
    const times = items.map((i) => i.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Object.keys(items[0]!).sort()).toEqual([...SPEC_FIELDS, "id"].sort());
    const first = items.find((i) => i.token_name === "ann-main" && i.model_name === "gpt-4o")!;
    expect(first).toMatchObject({ channel: 1, quota: 100, prompt_tokens: 10, completion_tokens: 20, is_stream: true, user_id: ann.id });
    expect(JSON.parse(first.other as string).admin_info).toEqual({ use_channel: ["1"] });
  });

  it("narrows by each filter", async () => {
    const count = async (qs: string) => (await adminItems(qs)).length;
    expect(await count("type=2")).toBe(5);
    expect(await count("type=0")).toBe(SEEDS.length);
    expect(await count("type=1")).toBe(1);
    expect(await count("username=ben")).toBe(3);
    expect(await count("token_name=ann-main")).toBe(2);
    expect(await count("model_name=gpt-4o")).toBe(3);
    expect(await count("channel=2")).toBe(2);
    expect(await count(`start_timestamp=${now - HOUR}`)).toBe(3);
    expect(await count(`end_timestamp=${now - HOUR}`)).toBe(5);
    expect(await count(`start_timestamp=${now - 5 * HOUR}&end_timestamp=${now - HOUR}`)).toBe(3);
    expect(await count("username=ann&model_name=gpt-4o&type=2&channel=1")).toBe(2);
    expect(await count("username=nobody")).toBe(0);
    // Empty or malformed numbers mean "not filtered".
    expect(await count("channel=&type=abc&start_timestamp=")).toBe(SEEDS.length);
  });

  it("pages and clamps", async () => {
    const zero = await call(logs.GET, "GET", "/api/log/?page_size=0&p=-1", { as: admin });
    expect(zero.json.data).toMatchObject({ page: 0, page_size: 1, total: SEEDS.length });
    expect(zero.json.data.items).toHaveLength(1);
    const huge = await call(logs.GET, "GET", "/api/log/?page_size=1000", { as: admin });
    expect(huge.json.data.page_size).toBe(100);
    const p1 = await call(logs.GET, "GET", "/api/log/?page_size=3&p=1", { as: admin });
    const all = await adminItems();
    expect(p1.json.data.items.map((i: Item) => i.id)).toEqual(all.slice(3, 6).map((i) => i.id));
  });

  it("is for admins only", async () => {
    expect((await call(logs.GET, "GET", "/api/log/", { as: ann })).status).toBe(403);
    expect((await call(stat.GET, "GET", "/api/log/stat", { as: ann })).status).toBe(403);
    expect((await call(logs.GET, "GET", "/api/log/")).status).toBe(401);
    expect((await call(selfLogs.GET, "GET", "/api/log/self/")).status).toBe(401);
    expect((await call(selfStat.GET, "GET", "/api/log/self/stat")).status).toBe(401);
    // Root is an admin too.
    expect(await adminItems("", root)).toHaveLength(SEEDS.length);
  });

  it("refuses a number no column holds, in the envelope", async () => {
    const res = await call(logs.GET, "GET", "/api/log/?channel=99999999999", { as: admin });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false });
    expect(res.json.message).toContain("超出范围");
    const past = await call(logs.GET, "GET", "/api/log/?p=999999999&page_size=100", { as: admin });
    expect(past.json).toMatchObject({ success: false, message: "页码超出范围" });
  });
});

describe("the self log", () => {
  it("shows only the caller's rows, without ids, channels or admin_info", async () => {
    const items = await selfItems(ann);
    expect(items).toHaveLength(5);
    expect(items.every((i) => i.user_id === ann.id)).toBe(true);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(SPEC_FIELDS.filter((f) => f !== "channel").sort());
      expect(item.other as string).not.toContain("admin_info");
    }
    const consumed = items.find((i) => i.model_name === "gpt-4o-mini")!;
    expect(JSON.parse(consumed.other as string)).toEqual({ model_ratio: 1, group_ratio: 1, frt: 120 });
  });

  it("ignores the admin-only filters and keeps the others", async () => {
    expect(await selfItems(ann, "username=ben")).toHaveLength(5);
    expect(await selfItems(ann, "channel=2")).toHaveLength(5);
    expect(await selfItems(ann, "token_name=ben-main")).toHaveLength(0);
    expect(await selfItems(ann, "model_name=gpt-4o&type=2")).toHaveLength(2);
    expect(await selfItems(ben, `start_timestamp=${now - HOUR}`)).toHaveLength(1);
    expect(await selfItems(ann, `end_timestamp=${now - HOUR}`)).toHaveLength(3);
    expect(await selfItems(ann, "type=1")).toHaveLength(1);
    expect(await selfItems(ann, "type=3")).toHaveLength(1);
    expect(await selfItems(ben, "type=4")).toHaveLength(1);
    expect(await selfItems(ann, "token_name=ann-side")).toHaveLength(1);
  });

  it("pages the caller's rows only", async () => {
    const first = await call(selfLogs.GET, "GET", "/api/log/self/?p=0&page_size=2", { as: ann });
    expect(first.json.data).toMatchObject({ page: 0, page_size: 2, total: 5 });
    const last = await call(selfLogs.GET, "GET", "/api/log/self/?p=2&page_size=2", { as: ann });
    expect(last.json.data.items).toHaveLength(1);
    const all = await selfItems(ann);
    const paged = [
      ...first.json.data.items,
      ...(await call(selfLogs.GET, "GET", "/api/log/self/?p=1&page_size=2", { as: ann })).json.data.items,
      ...last.json.data.items,
    ];
    expect(paged).toEqual(all);
    // An admin's own log is their own too: none of Ann's or Ben's rows.
    expect(await selfItems(admin)).toHaveLength(0);
  });
});

describe("stats", () => {
  const statOf = async (qs: string, as: Caller = admin, route = stat.GET) =>
    (await call(route, "GET", `/api/log/stat?${qs}`, { as })).json.data;

  it("sums consumed quota over the filter and counts the last 60 s for rpm and tpm", async () => {
    // Consumption rows: 100 + 50 + 400 + 70 + 900; the last minute holds 100, 50 and 70.
    expect(await statOf("")).toEqual({ quota: 1520, rpm: 3, tpm: 30 + 10 + 10 });
    expect(await statOf("username=ann")).toEqual({ quota: 550, rpm: 2, tpm: 40 });
    expect(await statOf("model_name=gpt-4o")).toEqual({ quota: 570, rpm: 2, tpm: 40 });
    expect(await statOf("token_name=ben-main")).toEqual({ quota: 970, rpm: 1, tpm: 10 });
    expect(await statOf("channel=1")).toEqual({ quota: 500, rpm: 1, tpm: 30 });
    // The time range narrows the sum, not rpm/tpm.
    expect(await statOf(`start_timestamp=${now - HOUR}`)).toEqual({ quota: 220, rpm: 3, tpm: 50 });
    expect((await statOf(`end_timestamp=${now - HOUR}`)).quota).toBe(1300);
    expect((await statOf("type=1")).quota).toBe(5000);
  });

  it("scopes the self stat to the caller", async () => {
    const mine = await statOf("username=ben", ann, selfStat.GET);
    expect(mine).toEqual({ quota: 550, rpm: 2, tpm: 40 });
    expect(await statOf("", ben, selfStat.GET)).toEqual({ quota: 970, rpm: 1, tpm: 10 });
    expect(await statOf("model_name=gpt-4o", ann, selfStat.GET)).toEqual({ quota: 500, rpm: 1, tpm: 30 });
    expect(await statOf("token_name=ann-side", ann, selfStat.GET)).toEqual({ quota: 400, rpm: 0, tpm: 0 });
    expect((await statOf(`start_timestamp=${now - HOUR}`, ann, selfStat.GET)).quota).toBe(150);
    expect((await statOf("type=1", ann, selfStat.GET)).quota).toBe(5000);
    expect((await statOf("type=1", ben, selfStat.GET)).quota).toBe(0);
    expect(await statOf("", admin, selfStat.GET)).toEqual({ quota: 0, rpm: 0, tpm: 0 });
  });
});

describe("cleanup", () => {
  it("is root only, needs a time, and deletes only older rows", async () => {
    const db = await getDb();
    const target = now - 24 * HOUR;
    expect((await call(logs.DELETE, "DELETE", `/api/log/?target_timestamp=${target}`, { as: admin })).status).toBe(403);
    const missing = await call(logs.DELETE, "DELETE", "/api/log/", { as: root });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain("请选择清理日志的截止时间");
    expect(await db.log.count()).toBe(SEEDS.length);
    const res = await call(logs.DELETE, "DELETE", `/api/log/?target_timestamp=${target}`, { as: root });
    expect(res.json).toMatchObject({ success: true, data: 2 });
    expect(await db.log.count()).toBe(SEEDS.length - 2);
    expect(await db.log.count({ where: { created_at: { lt: target } } })).toBe(0);
    const again = await call(logs.DELETE, "DELETE", `/api/log/?target_timestamp=${target}`, { as: root });
    expect(again.json.data).toBe(0);
  });

  it("refuses a bad time and deletes nothing", async () => {
    const db = await getDb();
    const before = await db.log.count();
    for (const bad of ["abc", "-5", "0", "1.5", "99999999999"]) {
      const res = await call(logs.DELETE, "DELETE", `/api/log/?target_timestamp=${bad}`, { as: root });
      expect(res.status, bad).toBe(400);
      expect(res.json.success).toBe(false);
    }
    expect(await db.log.count()).toBe(before);
    expect((await call(logs.DELETE, "DELETE", `/api/log/?target_timestamp=${now}`)).status).toBe(401);
  });

  it("deletes in bounded batches and lets other writes in between", async () => {
    const db = await getDb();
    await db.log.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({ created_at: 1000 + i, type: 2, username: "old", content: "" })),
    });
    const before = await db.log.count();
    // Ten batches with 150 ms between them: the cleanup takes well over a second.
    const cleanup = deleteLogsBefore(2000, { batchSize: 4, pauseMs: 150 });
    let ended = false;
    void cleanup.then(() => (ended = true));
    const old = () => db.log.count({ where: { created_at: { lt: 2000 } } });
    // Once its first batch is gone, a write made while it runs is not held up until it ends.
    await expect.poll(old, { interval: 5, timeout: 5_000 }).toBeLessThan(40);
    await db.log.create({ data: { created_at: nowSeconds(), type: 4, username: "fresh", content: "during cleanup" } });
    expect(ended).toBe(false);
    const remaining = await old();
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(40);
    // Every statement took exactly one batch, oldest first.
    expect(remaining % 4).toBe(0);
    expect(await db.log.findFirst({ where: { created_at: { lt: 2000 } }, orderBy: { id: "asc" }, select: { created_at: true } })).toEqual({
      created_at: 1000 + (40 - remaining),
    });
    expect(await cleanup).toBe(40);
    expect(await db.log.count()).toBe(before - 40 + 1);
    expect(await db.log.count({ where: { username: "fresh" } })).toBe(1);
  });
});
