import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { open, sha256Hex } from "@/lib/crypto/secret-box";
import { onInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { nowSeconds } from "@/lib/db/num";
import { call, createUser } from "@/tests/helpers/api";
import * as tokens from "@/app/api/token/route";
import * as search from "@/app/api/token/search/route";
import * as one from "@/app/api/token/[id]/route";
import { findTokenByKey } from "@/lib/tokens/relay";
import * as selfGroups from "@/app/api/user/self/groups/route";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";

type Caller = { id: number; cookie: string };
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  await getDb();
  alice = await createUser({ username: "tkalice" });
  bob = await createUser({ username: "tkbob", group: "special" });
});

const create = (body: Record<string, unknown>, as: Caller = alice) => call(tokens.POST, "POST", "/api/token/", { as, body });
const get = (id: number, as: Caller = alice) => call(one.GET, "GET", `/api/token/${id}`, { as, params: { id: String(id) } });
const put = (body: Record<string, unknown>, as: Caller = alice, statusOnly = false) =>
  call(tokens.PUT, "PUT", `/api/token/${statusOnly ? "?status_only=true" : ""}`, { as, body });

async function tokenRow(id: number) {
  return (await getDb()).token.findUniqueOrThrow({ where: { id } });
}

describe("creating tokens", () => {
  it("issues sk- plus 48 alphanumerics, stored as hash, sealed copy and hint only", async () => {
    const res = await create({ name: "first", remain_quota: 500000, expired_time: -1 });
    expect(res.json.success).toBe(true);
    const key: string = res.json.data.key;
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    const bare = key.slice(3);
    const row = await tokenRow(res.json.data.id);
    expect(row.key_hash).toBe(sha256Hex(bare));
    expect(row.key_enc).not.toContain(bare);
    expect(open(row.key_enc)).toBe(bare);
    expect(row.key_hint).toBe(bare.slice(0, 4) + bare.slice(-4));
    expect(row).toMatchObject({ user_id: alice.id, status: 1, remain_quota: 500000n, expired_time: -1, unlimited_quota: false });
    const other = await create({ name: "second" });
    expect(other.json.data.key).not.toBe(key);
  });

  it("refuses bad input with a clear message and writes nothing", async () => {
    const db = await getDb();
    const before = await db.token.count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "请填写令牌名称"],
      [{ name: "   " }, "请填写令牌名称"],
      [{ name: "x".repeat(31) }, "令牌名称过长"],
      [{ name: "q", remain_quota: -1 }, "额度必须是非负整数"],
      [{ name: "q", remain_quota: 1.5 }, "额度必须是非负整数"],
      [{ name: "e", expired_time: nowSeconds() - 10 }, "过期时间必须是未来的时间"],
      [{ name: "e", expired_time: -2 }, "过期时间必须是未来的时间"],
      [{ name: "ip", allow_ips: "1.2.3.4\nnot-an-ip\n10.0.0.0/33" }, "IP 白名单中有无效的地址：not-an-ip, 10.0.0.0/33"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(400);
      expect(res.json.message).toContain(message);
    }
    expect(await db.token.count()).toBe(before);
  });

  it("creates a batch of count tokens in one request: the first keeps the name, the others get -xxxxxx", async () => {
    const res = await create({ name: "lot", remain_quota: 1000, expired_time: -1, count: 3 });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    const made: Array<{ id: number; name: string; key: string }> = res.json.data;
    expect(made).toHaveLength(3);
    expect(made[0]!.name).toBe("lot");
    for (const t of made.slice(1)) expect(t.name).toMatch(/^lot-[A-Za-z0-9]{6}$/);
    expect(new Set(made.map((t) => t.key)).size).toBe(3);
    for (const t of made) {
      expect(t.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
      const row = await tokenRow(t.id);
      expect(open(row.key_enc)).toBe(t.key.slice(3));
      expect(row).toMatchObject({ user_id: alice.id, name: t.name, status: 1, remain_quota: 1000n, expired_time: -1 });
    }
    const one = await create({ name: "lot-of-one", count: 1 });
    expect(one.json.data).toHaveLength(1);
    expect(one.json.data[0].name).toBe("lot-of-one");
  });

  it("refuses a count that is not a whole number from 1 to 100, or names the suffix makes too long, creating none", async () => {
    const db = await getDb();
    const before = await db.token.count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: "n", count: 0 }, "新建数量必须是正整数"],
      [{ name: "n", count: -2 }, "新建数量必须是正整数"],
      [{ name: "n", count: 101 }, "新建数量必须是正整数"],
      [{ name: "n", count: 1.5 }, "新建数量必须是正整数"],
      [{ name: "n", count: "many" }, "新建数量必须是正整数"],
      [{ name: "x".repeat(24), count: 2 }, "令牌名称过长"],
      [{ name: "e", count: 5, expired_time: nowSeconds() - 10 }, "过期时间必须是未来的时间"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(400);
      expect(res.json, message).toEqual({ success: false, message: expect.stringContaining(message) });
    }
    expect(await db.token.count()).toBe(before);
  });

  it("normalises model limits and allow-lists", async () => {
    const res = await create({
      name: "limited",
      model_limits_enabled: true,
      model_limits: ["gpt-4o", " gpt-4o-mini", "gpt-4o"],
      allow_ips: "192.0.2.1, 10.0.0.0/8\n\n::1",
      expired_time: nowSeconds() + 3600,
      unlimited_quota: true,
    });
    expect(res.json.data).toMatchObject({
      model_limits: "gpt-4o,gpt-4o-mini",
      allow_ips: "192.0.2.1\n10.0.0.0/8\n::1",
      unlimited_quota: true,
    });
  });

  it("allows only usable groups: UserUsableGroups and the user's own", async () => {
    const db = await getDb();
    const before = await db.token.count();
    const escalate = await create({ name: "escalate", group: "svip" });
    expect(escalate.status).toBe(403);
    expect(escalate.json.message).toContain("svip");
    expect(await db.token.count()).toBe(before);
    expect((await create({ name: "vip", group: "vip" })).json.success).toBe(true);
    expect((await create({ name: "own", group: "special" }, bob)).json.success).toBe(true);
    expect((await create({ name: "not-hers", group: "special" })).status).toBe(403);
  });

  it("follows a changed UserUsableGroups: the group list and what a token may use", async () => {
    const groups = async () => (await call(selfGroups.GET, "GET", "/api/user/self/groups", { as: alice })).json.data;
    expect(Object.keys(await groups())).toEqual(["default", "vip"]);
    try {
      await updateOption("UserUsableGroups", JSON.stringify({ default: "默认分组", svip: "超级分组" }));
      expect(await groups()).toEqual({ default: "默认分组", svip: "超级分组" });
      expect((await create({ name: "svip-now", group: "svip" })).json.success).toBe(true);
      expect((await create({ name: "vip-gone", group: "vip" })).status).toBe(403);
    } finally {
      await updateOption("UserUsableGroups", defaultRaw("UserUsableGroups"));
    }
  });
});

describe("reading tokens", () => {
  it("masks keys in lists and shows the whole key to the owner of one token", async () => {
    const created = await create({ name: "masked" });
    const full: string = created.json.data.key;
    const list = await call(tokens.GET, "GET", "/api/token/?p=0&size=100", { as: alice });
    expect(list.json.data.total).toBe(list.json.data.items.length);
    for (const item of list.json.data.items) expect(item.key).toMatch(/^sk-[0-9A-Za-z]{4}\*{10}[0-9A-Za-z]{4}$/);
    expect(list.text).not.toContain(full.slice(3));
    const mine = list.json.data.items.find((t: { id: number }) => t.id === created.json.data.id);
    expect(mine.key).toBe(`sk-${full.slice(3, 7)}**********${full.slice(-4)}`);
    expect((await get(created.json.data.id)).json.data.key).toBe(full);
  });

  it("pages with size or page_size, clamped", async () => {
    const small = await call(tokens.GET, "GET", "/api/token/?size=2", { as: alice });
    expect(small.json.data).toMatchObject({ page: 0, page_size: 2 });
    expect(small.json.data.items).toHaveLength(2);
    const zero = await call(tokens.GET, "GET", "/api/token/?page_size=0&p=-1", { as: alice });
    expect(zero.json.data).toMatchObject({ page: 0, page_size: 1 });
    const huge = await call(tokens.GET, "GET", "/api/token/?page_size=1000", { as: alice });
    expect(huge.json.data.page_size).toBe(100);
  });

  it("searches by name, by whole key with or without sk-, and by the visible fragment", async () => {
    const created = await create({ name: "findme-token" });
    const full: string = created.json.data.key;
    const id = created.json.data.id;
    const find = async (qs: string) =>
      ((await call(search.GET, "GET", `/api/token/search?${qs}`, { as: alice })).json.data.items as Array<{ id: number; key: string }>).map(
        (t) => t.id,
      );
    expect(await find("keyword=findme")).toEqual([id]);
    expect(await find(`token=${full}`)).toEqual([id]);
    expect(await find(`token=${full.slice(3)}`)).toEqual([id]);
    expect(await find(`token=${full.slice(3, 7)}`)).toContain(id);
    expect(await find(`token=${full.slice(-4)}`)).toContain(id);
    expect(await find(`token=${full.slice(3, 7)}&keyword=nomatch`)).toEqual([]);
    // Bob cannot find Alice's token even with its whole key.
    const byBob = await call(search.GET, "GET", `/api/token/search?token=${full}`, { as: bob });
    expect(byBob.json.data.items).toEqual([]);
    const res = await call(search.GET, "GET", `/api/token/search?token=${full}`, { as: alice });
    expect(res.text).not.toContain(full.slice(3));
  });
});

describe("owner scoping", () => {
  it("answers 404 for another user's token and changes nothing", async () => {
    const created = await create({ name: "alice-only", remain_quota: 10 });
    const id = created.json.data.id;
    const before = await tokenRow(id);
    const attempts = [
      await get(id, bob),
      await put({ id, name: "stolen", remain_quota: 999 }, bob),
      await put({ id, status: 2 }, bob, true),
      await call(one.DELETE, "DELETE", `/api/token/${id}/`, { as: bob, params: { id: String(id) } }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(created.json.data.key.slice(3));
    }
    expect(await tokenRow(id)).toEqual(before);
    const bobsList = await call(tokens.GET, "GET", "/api/token/?page_size=100", { as: bob });
    expect(bobsList.json.data.items.every((t: { user_id: number }) => t.user_id === bob.id)).toBe(true);
  });
});

describe("updating tokens", () => {
  it("edits fields and keeps the key", async () => {
    const created = await create({ name: "edit-me", remain_quota: 100 });
    const id = created.json.data.id;
    const before = await tokenRow(id);
    const res = await put({ id, name: "edited", remain_quota: 250, model_limits: "a,b", model_limits_enabled: true });
    expect(res.json.data).toMatchObject({ name: "edited", remain_quota: 250, model_limits: "a,b", model_limits_enabled: true });
    const after = await tokenRow(id);
    expect(after.key_hash).toBe(before.key_hash);
    expect(after.key_enc).toBe(before.key_enc);
    expect((await put({ id, group: "svip" })).status).toBe(403);
    expect((await tokenRow(id)).group).toBe("");
  });

  it("refuses a new past expiry but lets an expired token be renamed", async () => {
    const created = await create({ name: "expiring", expired_time: nowSeconds() + 3600 });
    const id = created.json.data.id;
    expect((await put({ id, expired_time: nowSeconds() - 5 })).json.message).toContain("过期时间必须是未来的时间");
    const db = await getDb();
    const past = nowSeconds() - 100;
    await db.token.update({ where: { id }, data: { expired_time: past } });
    const rename = await put({ id, name: "renamed", expired_time: past });
    expect(rename.json.success).toBe(true);
    expect(rename.json.data.status).toBe(3);
  });

  it("applies the status_only rules", async () => {
    const db = await getDb();
    const created = await create({ name: "toggle", remain_quota: 5 });
    const id = created.json.data.id;
    const events: CacheEvent[] = [];
    const off = onInvalidation((e) => events.push(e));
    try {
      const disabled = await put({ id, status: 2 }, alice, true);
      expect(disabled.json.data.status).toBe(2);
      expect((await tokenRow(id)).status).toBe(2);
      expect((await put({ id, status: 3 }, alice, true)).json.success).toBe(false);
      expect((await put({ id }, alice, true)).json.success).toBe(false);

      await db.token.update({ where: { id }, data: { expired_time: nowSeconds() - 1 } });
      const expired = await put({ id, status: 1 }, alice, true);
      expect(expired.json.message).toBe("令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期");
      expect((await tokenRow(id)).status).toBe(2);

      await db.token.update({ where: { id }, data: { expired_time: -1, remain_quota: 0n } });
      const exhausted = await put({ id, status: 1 }, alice, true);
      expect(exhausted.json.message).toBe("令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度");
      expect((await tokenRow(id)).status).toBe(2);

      await db.token.update({ where: { id }, data: { unlimited_quota: true } });
      expect((await put({ id, status: 1 }, alice, true)).json.data.status).toBe(1);
    } finally {
      off();
    }
    const row = await tokenRow(id);
    expect(events.filter((e) => e.kind === "token")).toEqual([
      { kind: "token", keyHash: row.key_hash, id },
      { kind: "token", keyHash: row.key_hash, id },
    ]);
  });

  it("re-enables a token marked exhausted (as new-api marks them) once the edit gives it quota", async () => {
    const created = await create({ name: "refill", remain_quota: 1 });
    const id = created.json.data.id;
    await (await getDb()).token.update({ where: { id }, data: { status: 4 } });
    expect((await get(id)).json.data.status).toBe(4);
    const res = await put({ id, remain_quota: 1000 });
    expect(res.json.data.status).toBe(1);
    expect((await tokenRow(id)).status).toBe(1);
  });
});

describe("deleting tokens and the relay lookup", () => {
  it("finds a live token by key, and nothing once it is deleted", async () => {
    const created = await create({ name: "relay", remain_quota: 42, group: "vip", allow_ips: "10.0.0.1" });
    const id = created.json.data.id;
    const bare = created.json.data.key.slice(3);
    expect(await findTokenByKey(bare)).toMatchObject({
      id,
      user_id: alice.id,
      status: 1,
      name: "relay",
      expired_time: -1,
      remain_quota: 42n,
      unlimited_quota: false,
      model_limits_enabled: false,
      model_limits: "",
      allow_ips: "10.0.0.1",
      group: "vip",
    });
    expect(await findTokenByKey("x".repeat(48))).toBeNull();

    const events: CacheEvent[] = [];
    const off = onInvalidation((e) => events.push(e));
    const res = await call(one.DELETE, "DELETE", `/api/token/${id}/`, { as: alice, params: { id: String(id) } });
    off();
    expect(res.json.success).toBe(true);
    expect(events).toContainEqual({ kind: "token", keyHash: sha256Hex(bare), id });
    expect((await tokenRow(id)).deleted_at).toBeInstanceOf(Date);
    expect(await findTokenByKey(bare)).toBeNull();
    expect((await get(id)).status).toBe(404);
    const list = await call(tokens.GET, "GET", "/api/token/?page_size=100", { as: alice });
    expect(list.json.data.items.some((t: { id: number }) => t.id === id)).toBe(false);
    expect((await call(one.DELETE, "DELETE", `/api/token/${id}/`, { as: alice, params: { id: String(id) } })).status).toBe(404);
  });
});
