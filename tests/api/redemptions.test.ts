// Redemption codes through the console API: admin management (create, list, search, view, edit,
// enable/disable, delete), the storage of codes (no readable code in the database), and redeeming
// by users (POST /api/user/topup): every validation text, every refusal, and one credit per code.
import { readFileSync, existsSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { sqlitePath, env } from "@/lib/env";
import { open, sha256Hex } from "@/lib/crypto/secret-box";
import { onInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { nowSeconds } from "@/lib/db/num";
import { updateOption } from "@/lib/options";
import { redeemCode } from "@/lib/redemptions/redeem";
import { softDeleteUser } from "@/lib/users/soft-delete";
import { call, createUser } from "@/tests/helpers/api";
import * as codes from "@/app/api/redemption/route";
import * as search from "@/app/api/redemption/search/route";
import * as one from "@/app/api/redemption/[id]/route";
import * as topup from "@/app/api/user/topup/route";
import * as self from "@/app/api/user/self/route";

type Caller = { id: number; username: string; cookie: string };
let admin: Caller;
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  await getDb();
  await updateOption("DisplayInCurrencyEnabled", "true");
  admin = await createUser({ username: "rdadmin", role: 10 });
  alice = await createUser({ username: "rdalice" });
  bob = await createUser({ username: "rdbob" });
});

const create = (body: unknown, as: Caller = admin) => call(codes.POST, "POST", "/api/redemption/", { as, body });
const get = (id: number | string, as: Caller = admin) => call(one.GET, "GET", `/api/redemption/${id}`, { as, params: { id: String(id) } });
const del = (id: number | string, as: Caller = admin) =>
  call(one.DELETE, "DELETE", `/api/redemption/${id}/`, { as, params: { id: String(id) } });
const put = (body: unknown, as: Caller = admin, statusOnly = false) =>
  call(codes.PUT, "PUT", `/api/redemption/${statusOnly ? "?status_only=true" : ""}`, { as, body });
const list = (query = "", as: Caller = admin) => call(codes.GET, "GET", `/api/redemption/${query}`, { as });
const find = (query: string, as: Caller = admin) => call(search.GET, "GET", `/api/redemption/search${query}`, { as });
const redeem = (body: unknown, as: Caller) => call(topup.POST, "POST", "/api/user/topup", { as, body });

/** Creates one code and answers it with its row id. */
async function newCode(fields: Record<string, unknown> = {}) {
  const res = await create({ name: "code", ...fields });
  expect(res.json.success, res.json.message).toBe(true);
  const key: string = res.json.data[0];
  const row = await (await getDb()).redemption.findUniqueOrThrow({ where: { key_hash: sha256Hex(key) } });
  return { key, id: row.id };
}

const codeRow = async (id: number) => (await getDb()).redemption.findUniqueOrThrow({ where: { id } });
const quotaOf = async (id: number) => (await (await getDb()).user.findUniqueOrThrow({ where: { id } })).quota;
const topupLogs = async (userId: number) => (await getDb()).log.findMany({ where: { user_id: userId, type: 1 }, orderBy: { id: "asc" } });

/** Everything the tables a code touches hold, as text: what a database dump would show. */
async function dumpOf() {
  const db = await getDb();
  const rows = [await db.$queryRawUnsafe("SELECT * FROM redemptions"), await db.$queryRawUnsafe("SELECT * FROM logs")];
  return JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
}

describe("creating codes", () => {
  it("issues 32 hex digits with quota 100000 and count 1 by default, stored as hash, sealed copy and hint only", async () => {
    const res = await create({ name: "  launch  " });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, message: "" });
    expect(res.json.data).toHaveLength(1);
    const key: string = res.json.data[0];
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    const row = await (await getDb()).redemption.findUniqueOrThrow({ where: { key_hash: sha256Hex(key) } });
    expect(row).toMatchObject({
      user_id: admin.id,
      name: "launch",
      status: 1,
      quota: 100000n,
      used_user_id: 0,
      redeemed_time: 0,
      deleted_at: null,
    });
    expect(row.created_time).toBeGreaterThanOrEqual(nowSeconds() - 5);
    expect(open(row.key_enc)).toBe(key);
    expect(row.key_hint).toBe(key.slice(0, 4) + key.slice(-4));
  });

  it("creates count codes at once, all different, with integer fields parsed from strings", async () => {
    const res = await create({ name: "batch", quota: "2500", count: "3" });
    expect(res.json.success, res.json.message).toBe(true);
    const keys: string[] = res.json.data;
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    const rows = await (await getDb()).redemption.findMany({ where: { key_hash: { in: keys.map(sha256Hex) } } });
    expect(rows.map((r) => [r.name, r.quota, r.status])).toEqual(Array(3).fill(["batch", 2500n, 1]));
  });

  it("allows up to 100 codes a batch and a 20-character name", async () => {
    const res = await create({ name: "码".repeat(20), count: 100, quota: 1 });
    expect(res.json.success, res.json.message).toBe(true);
    expect(res.json.data).toHaveLength(100);
  });

  it("refuses bad input with the rule's text and writes nothing", async () => {
    const db = await getDb();
    const before = await db.redemption.count();
    const cases: Array<[unknown, string]> = [
      [{}, "name: 请填写兑换码名称"],
      [{ name: "" }, "name: 请填写兑换码名称"],
      [{ name: "   " }, "name: 请填写兑换码名称"],
      [{ name: 12 }, "name: 请填写兑换码名称"],
      [{ name: "x".repeat(21) }, "name: 兑换码名称长度必须在1-20之间"],
      [{ name: "q", quota: 0 }, "quota: 兑换额度必须是正整数"],
      [{ name: "q", quota: -100 }, "quota: 兑换额度必须是正整数"],
      [{ name: "q", quota: 1.5 }, "quota: 兑换额度必须是正整数"],
      [{ name: "q", quota: "lots" }, "quota: 兑换额度必须是正整数"],
      [{ name: "q", quota: 2 ** 60 }, "quota: 兑换额度必须是正整数"],
      [{ name: "c", count: 0 }, "count: 兑换码个数必须大于0"],
      [{ name: "c", count: -3 }, "count: 兑换码个数必须大于0"],
      [{ name: "c", count: 1.5 }, "count: 兑换码个数必须是整数"],
      [{ name: "c", count: "many" }, "count: 兑换码个数必须是整数"],
      [{ name: "c", count: 101 }, "count: 一次兑换码批量生成的个数不能大于 100"],
      ["not json", "请求体不是有效的 JSON"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
    }
    expect(await db.redemption.count()).toBe(before);
  });
});

describe("what the database holds", () => {
  it("no readable code: not in the row, not in the database file", async () => {
    const { key, id } = await newCode({ name: "dump" });
    const row = await codeRow(id);
    const raw = JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(raw).not.toContain(key);
    expect(await dumpOf()).not.toContain(key);
    // The SQLite file and its write-ahead log, byte for byte.
    for (const file of [sqlitePath, `${sqlitePath}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(key)), file).toBe(false);
    }
    // Redeeming leaves no readable code behind either (the log names the code's id).
    expect((await redeem({ key }, alice)).json.success).toBe(true);
    expect(await dumpOf()).not.toContain(key);
    const [log] = (await topupLogs(alice.id)).slice(-1);
    expect(log!.content).toContain(`兑换码ID ${id}`);
  });
});

describe("reading codes", () => {
  it("masks codes in lists and shows the whole code when one is read", async () => {
    const { key, id } = await newCode({ name: "masked" });
    const res = await list("?p=0&page_size=100");
    expect(res.json.success).toBe(true);
    for (const item of res.json.data.items) expect(item.key).toMatch(/^[0-9a-f]{4}\*{24}[0-9a-f]{4}$/);
    expect(res.text).not.toContain(key);
    const mine = res.json.data.items.find((c: { id: number }) => c.id === id);
    expect(mine).toEqual({
      id,
      user_id: admin.id,
      name: "masked",
      key: `${key.slice(0, 4)}${"*".repeat(24)}${key.slice(-4)}`,
      status: 1,
      quota: 100000,
      created_time: expect.any(Number),
      redeemed_time: 0,
      used_user_id: 0,
    });
    const read = await get(id);
    expect(read.json.data).toEqual({ ...mine, key });
  });

  it("pages newest first from p=0, page_size clamped to 1–100", async () => {
    const db = await getDb();
    const total = await db.redemption.count({ where: { deleted_at: null } });
    const first = await list("?p=0&page_size=2");
    expect(first.json.data).toMatchObject({ page: 0, page_size: 2, total });
    expect(first.json.data.items).toHaveLength(2);
    const [a, b] = first.json.data.items;
    expect(a.id).toBeGreaterThan(b.id);
    const second = await list("?p=1&page_size=2");
    expect(second.json.data.items[0].id).toBeLessThan(b.id);
    expect((await list()).json.data.page_size).toBe(10);
    expect((await list("?page_size=0&p=-4")).json.data).toMatchObject({ page: 0, page_size: 1 });
    expect((await list("?page_size=5000")).json.data.page_size).toBe(100);
    const past = await list("?p=99999999999");
    expect(past.status).toBe(400);
    expect(past.json.message).toBe("页码超出范围");
  });

  it("searches by id, name fragment or whole code, trimmed; deleted codes never show", async () => {
    const tag = `s${Date.now().toString(36).slice(-5)}`;
    const x = await newCode({ name: `${tag}-spring` });
    const y = await newCode({ name: `${tag}-summer` });
    const gone = await newCode({ name: `${tag}-gone` });
    await del(gone.id);
    const ids = (res: Awaited<ReturnType<typeof find>>) => res.json.data.items.map((c: { id: number }) => c.id);
    expect(ids(await find(`?keyword=${encodeURIComponent(`  ${tag}  `)}`))).toEqual([y.id, x.id]);
    expect(ids(await find(`?keyword=${tag}-sum`))).toEqual([y.id]);
    expect(ids(await find(`?keyword=${x.id}`))).toEqual([x.id]);
    expect(ids(await find(`?keyword=${encodeURIComponent(` ${x.key} `)}`))).toEqual([x.id]);
    expect(ids(await find(`?keyword=${gone.id}`))).toEqual([]);
    expect(ids(await find(`?keyword=${gone.key}`))).toEqual([]);
    const found = await find(`?keyword=${tag}`);
    expect(found.text).not.toContain(x.key);
    // No keyword: the list.
    const all = await find("?keyword=%20&page_size=3");
    expect(all.json.data).toMatchObject({ page_size: 3, total: (await list()).json.data.total });
  });
});

describe("who may manage codes", () => {
  it("refuses ordinary users and strangers on every admin call, and changes nothing", async () => {
    const { id } = await newCode({ name: "guarded" });
    const before = await codeRow(id);
    const db = await getDb();
    const count = await db.redemption.count();
    const attempts = (as?: Caller) => [
      call(codes.GET, "GET", "/api/redemption/", { as }),
      call(search.GET, "GET", "/api/redemption/search?keyword=guarded", { as }),
      call(one.GET, "GET", `/api/redemption/${id}`, { as, params: { id: String(id) } }),
      call(codes.POST, "POST", "/api/redemption/", { as, body: { name: "mine", quota: 10 ** 9, count: 5 } }),
      call(codes.PUT, "PUT", "/api/redemption/", { as, body: { id, quota: 10 ** 9 } }),
      call(codes.PUT, "PUT", "/api/redemption/?status_only=true", { as, body: { id, status: 2 } }),
      call(one.DELETE, "DELETE", `/api/redemption/${id}`, { as, params: { id: String(id) } }),
    ];
    for (const res of await Promise.all(attempts(alice))) {
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ success: false, message: "无权进行此操作，权限不足" });
    }
    for (const res of await Promise.all(attempts(undefined))) {
      expect(res.status).toBe(401);
      expect(res.json.success).toBe(false);
    }
    expect(await codeRow(id)).toEqual(before);
    expect(await db.redemption.count()).toBe(count);
  });

  it("answers not found for unknown, malformed and deleted ids", async () => {
    const { id } = await newCode({ name: "deleted" });
    const del1 = await del(id);
    expect(del1.json).toMatchObject({ success: true });
    expect((await codeRow(id)).deleted_at).not.toBeNull();
    for (const target of [id, 987654321, "abc", "0", "-1", "99999999999"]) {
      for (const res of [await get(target), await del(target)]) {
        expect(res.status, `${target}`).toBe(404);
        expect(res.json).toMatchObject({ success: false, message: "兑换码不存在" });
      }
    }
    for (const target of [id, 987654321]) {
      for (const res of [await put({ id: target, name: "back" }), await put({ id: target, status: 1 }, admin, true)]) {
        expect(res.status).toBe(404);
        expect(res.json.message).toBe("兑换码不存在");
      }
    }
    const row = await codeRow(id);
    expect(row).toMatchObject({ name: "deleted", status: 1 });
    expect(row.deleted_at).not.toBeNull();
  });

  it("refuses an update without a valid id", async () => {
    for (const body of [
      { name: "x" },
      { id: "abc", name: "x" },
      { id: 0, name: "x" },
      { id: 1.5, name: "x" },
      { id: 2 ** 40, name: "x" },
    ]) {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("参数错误：id: 兑换码 ID 无效");
    }
  });
});

describe("status and edit rules", () => {
  it("edits name and quota while unused, ignoring other fields of a whole row", async () => {
    const { key, id } = await newCode({ name: "before", quota: 100 });
    const res = await put({ id, name: "  after ", quota: 700, status: 2, key: "0".repeat(32), used_user_id: alice.id });
    expect(res.json.success, res.json.message).toBe(true);
    expect(res.json.data).toMatchObject({ id, name: "after", quota: 700, status: 1, used_user_id: 0 });
    expect(res.json.data.key).toBe(`${key.slice(0, 4)}${"*".repeat(24)}${key.slice(-4)}`);
    const row = await codeRow(id);
    expect(row).toMatchObject({ name: "after", quota: 700n, status: 1, used_user_id: 0, key_hash: sha256Hex(key) });
    // Nothing to change is still an edit of an unused code.
    expect((await put({ id })).json.success).toBe(true);
  });

  it("refuses edits with bad values and changes nothing", async () => {
    const { id } = await newCode({ name: "strict", quota: 100 });
    const before = await codeRow(id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ id, name: "" }, "name: 请填写兑换码名称"],
      [{ id, name: "  " }, "name: 请填写兑换码名称"],
      [{ id, name: "y".repeat(21) }, "name: 兑换码名称长度必须在1-20之间"],
      [{ id, quota: 0 }, "quota: 兑换额度必须是正整数"],
      [{ id, quota: -5 }, "quota: 兑换额度必须是正整数"],
      [{ id, quota: 2.5 }, "quota: 兑换额度必须是正整数"],
    ];
    for (const [body, message] of cases) {
      const res = await put(body);
      expect(res.status, message).toBe(400);
      expect(res.json.message).toContain(message);
    }
    expect(await codeRow(id)).toEqual(before);
  });

  it("disables and enables an unused code; a disabled code cannot be redeemed or edited", async () => {
    const { key, id } = await newCode({ name: "toggle", quota: 300 });
    const off = await put({ id, status: 2 }, admin, true);
    expect(off.json).toMatchObject({ success: true, data: { id, status: 2 } });
    const before = await quotaOf(alice.id);
    const tried = await redeem({ key }, alice);
    expect(tried.status).toBe(400);
    expect(tried.json).toMatchObject({ success: false, message: "该兑换码已被禁用" });
    expect(await quotaOf(alice.id)).toBe(before);
    const edit = await put({ id, quota: 999 });
    expect(edit.status).toBe(400);
    expect(edit.json.message).toBe("只能编辑未使用的兑换码");
    expect((await put({ id, status: 2 }, admin, true)).json.data.status).toBe(2);
    const on = await put({ id, status: 1 }, admin, true);
    expect(on.json).toMatchObject({ success: true, data: { status: 1 } });
    expect((await redeem({ key }, alice)).json).toMatchObject({ success: true, data: 300 });
    expect(await codeRow(id)).toMatchObject({ quota: 300n, status: 3, used_user_id: alice.id });
  });

  it("never changes a used code: no enable, no disable, no edit; deleting it is allowed", async () => {
    const { key, id } = await newCode({ name: "spent", quota: 50 });
    expect((await redeem({ key }, bob)).json.success).toBe(true);
    const used = await codeRow(id);
    for (const status of [1, 2]) {
      const res = await put({ id, status }, admin, true);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ success: false, message: "兑换码已被使用，状态不可修改" });
    }
    for (const body of [{ id, quota: 5_000_000 }, { id, name: "renamed" }, { id }]) {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("只能编辑未使用的兑换码");
    }
    expect(await codeRow(id)).toEqual(used);
    expect((await del(id)).json.success).toBe(true);
    expect(await quotaOf(bob.id)).toBeGreaterThanOrEqual(50n);
  });

  it("accepts only 1 and 2 as a status", async () => {
    const { id } = await newCode({ name: "status" });
    const before = await codeRow(id);
    for (const body of [{ id, status: 3 }, { id, status: 0 }, { id, status: "on" }, { id }, { id, status: 1.5 }]) {
      const res = await put(body, admin, true);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message).toContain("状态只能是 1（启用）或 2（禁用）");
    }
    expect(await codeRow(id)).toEqual(before);
  });
});

describe("redeeming a code", () => {
  const seen: CacheEvent[] = [];
  let stop: (() => void) | undefined;
  afterEach(() => {
    stop?.();
    seen.length = 0;
  });

  it("credits the quota once, marks the code used, logs a top-up and drops the user from the relay's cache", async () => {
    stop = onInvalidation((e) => seen.push(e));
    const { key, id } = await newCode({ name: "credit", quota: 100000 });
    const before = await quotaOf(alice.id);
    const logs = (await topupLogs(alice.id)).length;
    const res = await redeem({ key: `  ${key}\n` }, alice);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, message: "", data: 100000 });
    expect(await quotaOf(alice.id)).toBe(before + 100000n);
    const row = await codeRow(id);
    expect(row).toMatchObject({ status: 3, used_user_id: alice.id });
    expect(row.redeemed_time).toBeGreaterThanOrEqual(nowSeconds() - 5);
    const after = await topupLogs(alice.id);
    expect(after).toHaveLength(logs + 1);
    expect(after.at(-1)).toMatchObject({
      type: 1,
      username: "rdalice",
      quota: 100000n,
      content: `通过兑换码充值 ＄0.200000 额度，兑换码ID ${id}`,
    });
    expect(seen).toContainEqual({ kind: "user", id: alice.id });
    // The admin's view of the code now says who used it.
    expect((await get(id)).json.data).toMatchObject({ status: 3, used_user_id: alice.id, redeemed_time: row.redeemed_time });
    // A second try by anyone: used.
    for (const who of [alice, bob]) {
      const again = await redeem({ key }, who);
      expect(again.status).toBe(400);
      expect(again.json).toMatchObject({ success: false, message: "该兑换码已被使用" });
    }
    expect(await quotaOf(alice.id)).toBe(before + 100000n);
    expect(await topupLogs(alice.id)).toHaveLength(logs + 1);
  });

  it("writes the log in quota points when the console does not show currency", async () => {
    const { key, id } = await newCode({ name: "points", quota: 1234 });
    await updateOption("DisplayInCurrencyEnabled", "false");
    try {
      expect((await redeem({ key }, bob)).json.data).toBe(1234);
    } finally {
      await updateOption("DisplayInCurrencyEnabled", "true");
    }
    expect((await topupLogs(bob.id)).at(-1)!.content).toBe(`通过兑换码充值 1234 点额度，兑换码ID ${id}`);
  });

  it("moves the balance shown by exactly the credit while the relay holds a lease", async () => {
    const db = await getDb();
    const carol = await createUser({ username: "rdcarol", quota: 5000 });
    await db.quotaHold.create({
      data: {
        id: `rd-${Date.now()}`,
        user_id: carol.id,
        amount: 3000n,
        consumed: 1000n,
        reserved: 500n,
        created_at: nowSeconds(),
        updated_at: nowSeconds(),
      },
    });
    await db.user.update({ where: { id: carol.id }, data: { quota: 2000n } });
    const shown = async () => (await call(self.GET, "GET", "/api/user/self", { as: carol })).json.data.quota;
    expect(await shown()).toBe(3500);
    const { key } = await newCode({ name: "lease", quota: 40000 });
    expect((await redeem({ key }, carol)).json.data).toBe(40000);
    expect(await shown()).toBe(43500);
    expect(await quotaOf(carol.id)).toBe(42000n);
  });

  it("answers the spec's text for an empty code and changes nothing", async () => {
    const before = await quotaOf(alice.id);
    const logs = await (await getDb()).log.count();
    for (const body of [{ key: "" }, { key: "   \t" }, {}, { key: null }, { key: 12345 }, { key: ["a"] }]) {
      const res = await redeem(body, alice);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json).toEqual({ success: false, message: "请输入兑换码！" });
    }
    expect(await quotaOf(alice.id)).toBe(before);
    expect(await (await getDb()).log.count()).toBe(logs);
  });

  it("refuses unknown and deleted codes alike", async () => {
    const { key, id } = await newCode({ name: "withdrawn" });
    await del(id);
    const before = await quotaOf(bob.id);
    for (const attempt of [key, "0".repeat(32), "nonsense", key.toUpperCase(), key.slice(1)]) {
      const res = await redeem({ key: attempt }, bob);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message: "无效的兑换码" });
    }
    expect(await quotaOf(bob.id)).toBe(before);
    expect(await codeRow(id)).toMatchObject({ status: 1, used_user_id: 0 });
  });

  it("needs a signed-in user", async () => {
    const { key, id } = await newCode({ name: "anon" });
    const res = await call(topup.POST, "POST", "/api/user/topup", { body: { key } });
    expect(res.status).toBe(401);
    expect(await codeRow(id)).toMatchObject({ status: 1 });
  });

  it("credits nobody when the redeemer's account is gone, and the code stays unused", async () => {
    const dave = await createUser({ username: "rddave" });
    const { key, id } = await newCode({ name: "orphan" });
    await softDeleteUser(dave.id);
    await expect(redeemCode({ id: dave.id, username: "rddave" }, key)).rejects.toMatchObject({ status: 404, message: "用户不存在" });
    expect(await codeRow(id)).toMatchObject({ status: 1, used_user_id: 0, redeemed_time: 0 });
    expect(await topupLogs(dave.id)).toHaveLength(0);
  });

  it("stops a user after too many failed attempts, before looking at the code", async () => {
    const erin = await createUser({ username: "rderin" });
    for (let i = 0; i < env.CRITICAL_RATE_LIMIT; i++) {
      expect((await redeem({ key: `wrong-${i}` }, erin)).json.message).toBe("无效的兑换码");
    }
    const { key, id } = await newCode({ name: "late" });
    const res = await redeem({ key }, erin);
    expect(res.status).toBe(429);
    expect(res.json).toEqual({ success: false, message: "兑换失败次数过多，请稍后再试" });
    expect(await codeRow(id)).toMatchObject({ status: 1 });
    expect(await quotaOf(erin.id)).toBe(0n);
    // Others are not affected, and successes do not count.
    for (let i = 0; i < env.CRITICAL_RATE_LIMIT + 2; i++) {
      const { key: k } = await newCode({ name: "many", quota: 1 });
      expect((await redeem({ key: k }, bob)).json.success).toBe(true);
    }
  });

  it("two users redeeming one code at once: exactly one credit and one log row", async () => {
    const db = await getDb();
    for (let round = 0; round < 5; round++) {
      const { key, id } = await newCode({ name: "race", quota: 777 });
      const [qa, qb] = [await quotaOf(alice.id), await quotaOf(bob.id)];
      const results = await Promise.all([redeem({ key }, alice), redeem({ key }, bob), redeem({ key }, alice), redeem({ key }, bob)]);
      const won = results.filter((r) => r.json.success);
      expect(won).toHaveLength(1);
      expect(won[0]!.json.data).toBe(777);
      for (const r of results.filter((x) => !x.json.success)) expect(r.json.message).toBe("该兑换码已被使用");
      const row = await codeRow(id);
      const winner = row.used_user_id;
      expect([alice.id, bob.id]).toContain(winner);
      expect((await quotaOf(alice.id)) - qa + ((await quotaOf(bob.id)) - qb)).toBe(777n);
      expect(await quotaOf(winner)).toBe((winner === alice.id ? qa : qb) + 777n);
      expect(await db.log.count({ where: { type: 1, content: { endsWith: `兑换码ID ${id}` } } })).toBe(1);
    }
  });
});
