import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { onInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { updateOption } from "@/lib/options";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import * as users from "@/app/api/user/route";
import * as search from "@/app/api/user/search/route";
import * as one from "@/app/api/user/[id]/route";
import * as manage from "@/app/api/user/manage/route";
import * as self from "@/app/api/user/self/route";
import * as groups from "@/app/api/group/route";

type Caller = { id: number; cookie: string; username?: string };
let root: Caller;
let admin: Caller;
let admin2: Caller;

/** Every response body these routes produced, scanned for secrets at the end. */
const seen: string[] = [];
async function track<T extends { text: string }>(res: Promise<T>): Promise<T> {
  const r = await res;
  seen.push(r.text);
  return r;
}

const list = (qs = "", as: Caller = admin) => track(call(users.GET, "GET", `/api/user/${qs}`, { as }));
const find = (qs: string, as: Caller = admin) => track(call(search.GET, "GET", `/api/user/search?${qs}`, { as }));
const get = (id: number, as: Caller = admin) => track(call(one.GET, "GET", `/api/user/${id}`, { as, params: { id: String(id) } }));
const create = (body: Record<string, unknown>, as: Caller = admin) => track(call(users.POST, "POST", "/api/user/", { as, body }));
const update = (body: Record<string, unknown>, as: Caller = admin) => track(call(users.PUT, "PUT", "/api/user/", { as, body }));
const act = (id: number, action: string, as: Caller = admin) =>
  track(call(manage.POST, "POST", "/api/user/manage", { as, body: { id, action } }));
const hardDelete = (id: number, as: Caller = admin) =>
  track(call(one.DELETE, "DELETE", `/api/user/${id}`, { as, params: { id: String(id) } }));

async function row(id: number) {
  return (await getDb()).user.findUniqueOrThrow({ where: { id } });
}

beforeAll(async () => {
  const db = await getDb();
  const r = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: r.id, cookie: await sessionCookieFor(r.id) };
  admin = await createUser({ username: "uadmin", role: 10 });
  admin2 = await createUser({ username: "uadmin2", role: 10 });
  // Secrets that must never come back: an access-token hash on everyone, root included.
  for (const u of await db.user.findMany({ select: { id: true } })) {
    await db.user.update({ where: { id: u.id }, data: { access_token_hash: `secret-hash-${u.id}-0123456789abcdef` } });
  }
  await updateOption("DisplayInCurrencyEnabled", "true");
});

describe("listing and searching", () => {
  it("lists newest first with paging, including soft-deleted users", async () => {
    const gone = await createUser({ username: "ulisted-gone" });
    const db = await getDb();
    await db.user.update({ where: { id: gone.id }, data: { deleted_at: new Date() } });
    const res = await list("?p=0&page_size=100");
    const items = res.json.data.items as Array<{ id: number; DeletedAt: string | null }>;
    expect(res.json.data.total).toBe(await db.user.count());
    expect(items.map((u) => u.id)).toEqual([...items.map((u) => u.id)].sort((a, b) => b - a));
    expect(items.find((u) => u.id === gone.id)!.DeletedAt).toEqual(expect.any(String));
    expect(items.find((u) => u.id === admin.id)!.DeletedAt).toBeNull();
    const page = await list("?p=1&page_size=2");
    expect(page.json.data.items).toHaveLength(2);
    expect(page.json.data.items[0].id).toBe(items[2]!.id);
  });

  it("clamps paging", async () => {
    expect((await list("?page_size=0")).json.data).toMatchObject({ page_size: 1 });
    expect((await list("?page_size=0")).json.data.items).toHaveLength(1);
    expect((await list("?page_size=1000")).json.data.page_size).toBe(100);
    expect((await list("?p=-1")).json.data.page).toBe(0);
  });

  it("searches by id, username, display name, e-mail and group", async () => {
    const u = await createUser({ username: "usearchable", group: "vip" });
    const db = await getDb();
    await db.user.update({ where: { id: u.id }, data: { display_name: "Display Zed", email: "zed@example.com" } });
    const ids = async (qs: string) => ((await find(qs)).json.data.items as Array<{ id: number }>).map((x) => x.id);
    expect(await ids(`keyword=${u.id}`)).toContain(u.id);
    expect(await ids("keyword=searchab")).toEqual([u.id]);
    expect(await ids("keyword=Zed")).toEqual([u.id]);
    expect(await ids("keyword=zed@example")).toEqual([u.id]);
    expect(await ids("group=vip")).toEqual([u.id]);
    expect(await ids("keyword=searchab&group=default")).toEqual([]);
  });

  it("is for admins only", async () => {
    const plain = await createUser({ username: "uplain" });
    expect((await list("", plain)).status).toBe(403);
    expect((await find("keyword=a", plain)).status).toBe(403);
    expect((await act(plain.id, "disable", plain)).status).toBe(403);
  });

  it("answers 403 to an ordinary user on every admin user call, changing nothing", async () => {
    const plain = await createUser({ username: "uplain2" });
    const other = await createUser({ username: "uplainvictim", quota: 10 });
    const db = await getDb();
    const before = await db.user.findMany({ orderBy: { id: "asc" } });
    const answers = {
      list: await list("", plain),
      search: await find("keyword=u", plain),
      get: await get(other.id, plain),
      create: await create({ username: "uplainmade", password: "password123" }, plain),
      update: await update({ id: other.id, quota: 999999 }, plain),
      updateSelf: await update({ id: plain.id, quota: 999999, role: 100 }, plain),
      hardDelete: await hardDelete(other.id, plain),
      groups: await track(call(groups.GET, "GET", "/api/group/", { as: plain })),
    };
    for (const action of ["promote", "demote", "disable", "enable", "delete"]) {
      Object.assign(answers, { [action]: await act(other.id, action, plain) });
    }
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBe(403);
      expect(res.json.success, name).toBe(false);
    }
    expect(await db.user.findMany({ orderBy: { id: "asc" } })).toEqual(before);
  });
});

describe("creating users", () => {
  it("creates an ordinary user", async () => {
    const res = await create({ username: "ucreated", display_name: "Created", password: "password123" });
    expect(res.json.success).toBe(true);
    expect(res.json.data).toMatchObject({ username: "ucreated", display_name: "Created", role: 1, status: 1 });
    const stored = await row(res.json.data.id);
    expect(stored.password).not.toBe("password123");
  });

  it("refuses taken names (also soft-deleted ones) and bad passwords, writing nothing", async () => {
    const db = await getDb();
    const gone = await createUser({ username: "ugone" });
    await db.user.update({ where: { id: gone.id }, data: { deleted_at: new Date() } });
    const before = await db.user.count();
    expect((await create({ username: "ucreated", password: "password123" })).json.message).toBe("用户名已存在，或已注销");
    expect((await create({ username: "ugone", password: "password123" })).json.message).toBe("用户名已存在，或已注销");
    expect((await create({ username: "ushort", password: "short" })).json.message).toContain("密码长度不得小于 8 位！");
    expect((await create({ username: "ulong", password: "x".repeat(21) })).json.message).toContain("密码长度不得大于 20 位！");
    expect((await create({ username: "", password: "password123" })).json.success).toBe(false);
    expect(await db.user.count()).toBe(before);
  });
});

describe("editing users", () => {
  it("keeps quota the relay spends while the admin edits, and logs the change", async () => {
    const u = await createUser({ username: "uquota", quota: 1000 });
    const seenByAdmin = (await get(u.id)).json.data.quota;
    expect(seenByAdmin).toBe(1000);
    // The relay spends 300 between the admin opening the form and saving it.
    const db = await getDb();
    const spent = await db.$executeRaw`UPDATE users SET quota = quota - 300 WHERE id = ${u.id} AND quota >= 300`;
    expect(spent).toBe(1);
    const res = await update({ id: u.id, quota: 1500, original_quota: seenByAdmin });
    expect(res.json.success).toBe(true);
    expect(res.json.data.quota).toBe(1200);
    expect((await row(u.id)).quota).toBe(1200n);
    const logs = await db.log.findMany({ where: { user_id: u.id, type: 3 } });
    expect(logs).toHaveLength(1);
    expect(logs[0]!.content).toBe("管理员将用户额度从 ＄0.001400 额度修改为 ＄0.002400 额度");
    expect(logs[0]!.username).toBe("uquota");

    // Without original_quota the difference is taken from the balance at save time.
    await update({ id: u.id, quota: 200 });
    expect((await row(u.id)).quota).toBe(200n);
    // Negative balances are allowed (spec: add quota, negative included).
    await updateOption("DisplayInCurrencyEnabled", "false");
    await update({ id: u.id, quota: -50 });
    expect((await row(u.id)).quota).toBe(-50n);
    const last = await db.log.findFirstOrThrow({ where: { user_id: u.id, type: 3 }, orderBy: { id: "desc" } });
    expect(last.content).toBe("管理员将用户额度从 200 点额度修改为 -50 点额度");
    await updateOption("DisplayInCurrencyEnabled", "true");
    // Saving without a quota change writes no log.
    await update({ id: u.id, display_name: "Q", quota: -50 });
    expect(await db.log.count({ where: { user_id: u.id, type: 3 } })).toBe(3);
  });

  it("changes profile fields, and a new password ends the user's sessions", async () => {
    const u = await createUser({ username: "uedit" });
    const before = await row(u.id);
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(200);
    const res = await update({ id: u.id, username: "uedited", display_name: "Edited", group: "vip", email: "e@example.com", password: "" });
    expect(res.json.data).toMatchObject({ username: "uedited", display_name: "Edited", group: "vip", email: "e@example.com" });
    const kept = await row(u.id);
    expect(kept.password).toBe(before.password);
    expect(kept.auth_version).toBe(before.auth_version);
    await update({ id: u.id, password: "newpassword1" });
    const changed = await row(u.id);
    expect(changed.password).not.toBe(before.password);
    expect(changed.auth_version).toBe(before.auth_version + 1);
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
    expect((await update({ id: u.id, username: "uadmin" })).json.message).toBe("用户名已存在，或已注销");
    expect((await update({ id: u.id, password: "short" })).json.success).toBe(false);
    expect((await row(u.id)).username).toBe("uedited");
  });

  it("lets only root change roles, and never to its own role or above", async () => {
    const u = await createUser({ username: "urole" });
    expect((await update({ id: u.id, role: 10 })).json.message).toBe("只有超级管理员可以修改用户角色");
    expect((await update({ id: u.id, role: 100 }, root)).status).toBe(403);
    expect((await update({ id: u.id, role: 101 }, root)).status).toBe(403);
    expect((await update({ id: u.id, role: 5 }, root)).status).toBe(403);
    expect((await row(u.id)).role).toBe(1);
    expect((await update({ id: u.id, role: 10 }, root)).json.data.role).toBe(10);
    expect((await update({ id: root.id, role: 10 }, root)).json.message).toBe("不能修改自己的角色");
    expect((await row(root.id)).role).toBe(100);
  });

  it("refuses edits of equal or higher roles", async () => {
    const before = [await row(admin2.id), await row(root.id), await row(admin.id)];
    expect((await update({ id: admin2.id, display_name: "x" })).status).toBe(403);
    expect((await update({ id: root.id, display_name: "x", quota: 1 })).status).toBe(403);
    expect((await update({ id: admin.id, quota: 99999999 })).status).toBe(403);
    expect((await get(admin2.id)).status).toBe(403);
    expect((await get(root.id)).status).toBe(403);
    expect([await row(admin2.id), await row(root.id), await row(admin.id)]).toEqual(before);
    // Root may edit itself and any admin.
    expect((await update({ id: root.id, display_name: "Root" }, root)).json.success).toBe(true);
    expect((await update({ id: admin2.id, display_name: "Second" }, root)).json.success).toBe(true);
  });

  it("answers 404 for unknown and deactivated users", async () => {
    expect((await update({ id: 999999, display_name: "x" })).status).toBe(404);
    expect((await get(999999)).status).toBe(404);
    const gone = await createUser({ username: "uedit-gone" });
    await act(gone.id, "delete");
    expect((await update({ id: gone.id, display_name: "x" })).status).toBe(404);
  });
});

describe("manage actions", () => {
  it("promotes (root only, to admin) and demotes", async () => {
    const u = await createUser({ username: "upromote" });
    expect((await act(u.id, "promote")).json.message).toBe("普通管理员用户无法提升其他用户为管理员");
    expect((await row(u.id)).role).toBe(1);
    expect((await act(u.id, "promote", root)).json.data).toEqual({ role: 10, status: 1 });
    expect((await act(u.id, "promote", root)).json.message).toBe("该用户已经是管理员");
    expect((await act(u.id, "demote")).status).toBe(403);
    expect((await act(u.id, "demote", root)).json.data).toEqual({ role: 1, status: 1 });
    expect((await act(u.id, "demote", root)).json.message).toBe("该用户已经是普通用户");
  });

  it("disables (ending sessions) and enables, but never a special status", async () => {
    const u = await createUser({ username: "udisable" });
    const before = await row(u.id);
    expect((await act(u.id, "disable")).json.data).toEqual({ role: 1, status: 2 });
    expect((await row(u.id)).auth_version).toBe(before.auth_version + 1);
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
    expect((await act(u.id, "enable")).json.data).toEqual({ role: 1, status: 1 });
    const db = await getDb();
    await db.user.update({ where: { id: u.id }, data: { status: 3 } });
    expect((await act(u.id, "enable")).json.message).toBe("该用户状态特殊，无法启用");
    expect((await row(u.id)).status).toBe(3);
  });

  it("soft-deletes, revoking sessions and the access token", async () => {
    const u = await createUser({ username: "usoftdel" });
    const db = await getDb();
    await db.user.update({ where: { id: u.id }, data: { access_token_hash: "to-be-revoked" } });
    const res = await act(u.id, "delete");
    expect(res.json.success).toBe(true);
    const stored = await row(u.id);
    expect(stored.deleted_at).toBeInstanceOf(Date);
    expect(stored.access_token_hash).toBeNull();
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
    expect((await act(u.id, "enable")).status).toBe(404);
    const listed = (await list("?page_size=100")).json.data.items.find((x: { id: number }) => x.id === u.id);
    expect(listed.DeletedAt).toEqual(expect.any(String));
  });

  it("never disables, deletes or demotes root, and admins never act on admins", async () => {
    const rootBefore = await row(root.id);
    expect((await act(root.id, "disable")).json.message).toBe("无法禁用超级管理员用户");
    expect((await act(root.id, "delete")).json.message).toBe("无法删除超级管理员用户");
    expect((await act(root.id, "demote")).json.message).toBe("无法降级超级管理员用户");
    for (const action of ["disable", "delete", "demote", "promote", "enable"]) {
      expect((await act(root.id, action, root)).status, `root ${action} root`).toBe(403);
      expect((await act(root.id, action)).status, `admin ${action} root`).toBe(403);
    }
    expect(await row(root.id)).toEqual(rootBefore);
    const adminBefore = await row(admin2.id);
    for (const action of ["disable", "delete", "demote", "promote", "enable"]) {
      expect((await act(admin2.id, action)).status, `admin ${action} admin`).toBe(403);
      expect((await act(admin.id, action)).status, `admin ${action} self`).toBe(403);
    }
    expect(await row(admin2.id)).toEqual(adminBefore);
    expect((await act(admin2.id, "disable", root)).json.data).toEqual({ role: 10, status: 2 });
    expect((await act(admin2.id, "enable", root)).json.data).toEqual({ role: 10, status: 1 });
    expect((await call(manage.POST, "POST", "/api/user/manage", { as: admin, body: { id: 1, action: "explode" } })).json.message).toContain(
      "无效的操作",
    );
  });

  it("publishes a user invalidation for each change", async () => {
    const u = await createUser({ username: "upublish" });
    const events: CacheEvent[] = [];
    const off = onInvalidation((e) => events.push(e));
    try {
      await act(u.id, "disable");
      await update({ id: u.id, quota: 5 });
    } finally {
      off();
    }
    expect(events).toEqual([
      { kind: "user", id: u.id },
      { kind: "user", id: u.id },
    ]);
  });
});

describe("hard delete", () => {
  it("removes the user and their tokens, under the same rules", async () => {
    const u = await createUser({ username: "uharddel" });
    const db = await getDb();
    await db.token.create({ data: { user_id: u.id, key_hash: "hd-hash", key_enc: "x", name: "t" } });
    expect((await hardDelete(root.id)).json.message).toBe("无法删除超级管理员用户");
    expect((await hardDelete(admin2.id)).status).toBe(403);
    expect((await hardDelete(999999)).status).toBe(404);
    const res = await hardDelete(u.id);
    expect(res.json.success).toBe(true);
    expect(await db.user.findUnique({ where: { id: u.id } })).toBeNull();
    expect(await db.token.count({ where: { user_id: u.id } })).toBe(0);
    expect(await db.user.findUnique({ where: { id: admin2.id } })).not.toBeNull();
  });
});

describe("secrets", () => {
  it("never appear in any answer of these routes", async () => {
    const db = await getDb();
    // A final sweep over every lookup, on top of everything recorded above.
    await list("?page_size=100", root);
    await find("keyword=u&page_size=100", root);
    for (const u of await db.user.findMany({ select: { id: true } })) await get(u.id, root);
    const secrets = (await db.user.findMany({ select: { password: true, access_token_hash: true } }))
      .flatMap((u) => [u.password, u.access_token_hash ?? ""])
      .filter(Boolean);
    expect(seen.length).toBeGreaterThan(50);
    for (const text of seen) {
      expect(text).not.toMatch(/"password"|access_token|\$2[aby]\$/);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});
