// The audit trail: every admin and root action writes one row with its actor, target, client
// address and what changed; secrets (option secrets, channel keys, passwords, redemption codes)
// never appear in any row; GET /api/audit/ filters by actor, action, target and time and answers
// root only.
import { beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as channels from "@/app/api/channel/route";
import * as channelOne from "@/app/api/channel/[id]/route";
import * as channelKey from "@/app/api/channel/[id]/key/route";
import { markVerified } from "@/tests/helpers/step-up";
import * as channelBatch from "@/app/api/channel/batch/route";
import * as channelDisabled from "@/app/api/channel/disabled/route";
import * as logs from "@/app/api/log/route";
import * as options from "@/app/api/option/route";
import * as resetRatio from "@/app/api/option/rest_model_ratio/route";
import * as redemptions from "@/app/api/redemption/route";
import * as redemptionOne from "@/app/api/redemption/[id]/route";
import * as users from "@/app/api/user/route";
import * as userOne from "@/app/api/user/[id]/route";
import * as manage from "@/app/api/user/manage/route";
import type { AUDIT_ACTIONS } from "@/lib/audit/actions";
import { AUDIT_MSG, type AuditItem, auditFiltersOf } from "@/lib/audit/read";
import { maskSecret } from "@/lib/audit/write";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { defaultRaw } from "@/lib/options/registry";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";

type Caller = { id: number; cookie: string; username: string };
let root: Caller;
let admin: Caller;
let user: Caller;

/** The address every change in this file comes from, as the relay worker vouches for it. */
const IP = "198.51.100.77";

beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, username: "root", cookie: await sessionCookieFor(row.id) };
  admin = await createUser({ username: "audadmin", role: 10 });
  user = await createUser({ username: "auduser" });
});

const as = (caller: Caller, body?: unknown) => ({ as: caller, body, ip: IP });

/** GET /api/audit/ as root with these filters. */
async function auditPage(query: Record<string, string | number> = {}, caller: Caller = root) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return call(audit.GET, "GET", `/api/audit/?${qs}`, { as: caller });
}

/** The rows of `action` about `target`, oldest first. */
async function rowsOf(action: keyof typeof AUDIT_ACTIONS, target: string | number): Promise<AuditItem[]> {
  const res = await auditPage({ action, target: String(target), page_size: 100 });
  expect(res.json.success, res.json.message).toBe(true);
  return (res.json.data.items as AuditItem[]).reverse();
}

/** The one row of `action` about `target`. */
async function onlyRow(action: keyof typeof AUDIT_ACTIONS, target: string | number): Promise<AuditItem> {
  const rows = await rowsOf(action, target);
  expect(rows, `${action} rows about ${target}`).toHaveLength(1);
  return rows[0]!;
}

/** Every audit row as stored, for the "never anywhere" checks. */
async function everyRowText(): Promise<string> {
  return JSON.stringify(await (await getDb()).auditLog.findMany());
}

const by = (caller: Caller) => ({ actor_id: caller.id, actor_name: caller.username, ip: IP });

describe("user administration is audited", () => {
  it("create, then an edit of role, name, group, quota and password: one row each, never the password", async () => {
    const created = await call(users.POST, "POST", "/api/user/", as(root, { username: "aud-target", password: "first-secret-pass" }));
    expect(created.json.success).toBe(true);
    const id: number = created.json.data.id;
    expect(await onlyRow("user.create", id)).toMatchObject({
      ...by(root),
      target_type: "user",
      target_id: String(id),
      detail: { username: "aud-target", display_name: "aud-target" },
    });

    const edited = await call(
      users.PUT,
      "PUT",
      "/api/user/",
      as(root, { id, username: "aud-renamed", group: "vip", quota: 5000, original_quota: 0, password: "second-secret-pass", role: 10 }),
    );
    expect(edited.json.success, edited.json.message).toBe(true);
    expect((await onlyRow("user.role", id)).detail).toEqual({ role: { from: 1, to: 10 } });
    expect((await onlyRow("user.update", id)).detail).toEqual({
      username: { from: "aud-target", to: "aud-renamed" },
      group: { from: "default", to: "vip" },
    });
    expect((await onlyRow("user.quota", id)).detail).toEqual({ quota: { from: 0, to: 5000 } });
    expect(await onlyRow("user.password", id)).toMatchObject({ ...by(root), detail: {} });
    const text = await everyRowText();
    for (const secret of ["first-secret-pass", "second-secret-pass"]) expect(text).not.toContain(secret);
  });

  it("an edit that changes nothing writes nothing", async () => {
    const u = await createUser({ username: "aud-same" });
    const res = await call(users.PUT, "PUT", "/api/user/", as(root, { id: u.id, username: "aud-same", group: "default" }));
    expect(res.json.success).toBe(true);
    expect((await auditPage({ target: u.id, target_type: "user" })).json.data.total).toBe(0);
  });

  it("promote, demote, disable, enable and delete each write their row; the admin is the actor when it acts", async () => {
    const u = await createUser({ username: "aud-managed" });
    const act = (caller: Caller, action: string) => call(manage.POST, "POST", "/api/user/manage", as(caller, { id: u.id, action }));
    expect((await act(root, "promote")).json.success).toBe(true);
    expect((await act(root, "demote")).json.success).toBe(true);
    expect((await act(admin, "disable")).json.success).toBe(true);
    expect((await act(admin, "enable")).json.success).toBe(true);
    expect((await rowsOf("user.role", u.id)).map((r) => [r.actor_name, r.detail])).toEqual([
      ["root", { role: { from: 1, to: 10 } }],
      ["root", { role: { from: 10, to: 1 } }],
    ]);
    expect(
      (await rowsOf("user.status", u.id)).map((r) => ({ actor_id: r.actor_id, actor_name: r.actor_name, ip: r.ip, detail: r.detail })),
    ).toEqual([
      { ...by(admin), detail: { status: { from: 1, to: 2 } } },
      { ...by(admin), detail: { status: { from: 2, to: 1 } } },
    ]);
    expect((await act(admin, "delete")).json.success).toBe(true);
    expect(await onlyRow("user.delete", u.id)).toMatchObject({ ...by(admin), detail: { username: "aud-managed" } });
  });

  it("a refused action writes nothing", async () => {
    const res = await call(manage.POST, "POST", "/api/user/manage", as(admin, { id: root.id, action: "disable" }));
    expect(res.json.success).toBe(false);
    expect((await auditPage({ target: root.id, target_type: "user" })).json.data.total).toBe(0);
  });

  it("the hard delete writes user.purge", async () => {
    const u = await createUser({ username: "aud-purged" });
    const res = await call(userOne.DELETE, "DELETE", `/api/user/${u.id}`, { ...as(root), params: { id: String(u.id) } });
    expect(res.json.success).toBe(true);
    expect(await onlyRow("user.purge", u.id)).toMatchObject({ ...by(root), detail: { username: "aud-purged" } });
  });
});

describe("option changes are audited with old and new value, secrets masked", () => {
  const put = (key: string, value: string) => call(options.PUT, "PUT", "/api/option/", as(root, { key, value }));

  it("a plain option: from → to; saving the same value again writes nothing", async () => {
    expect((await put("SystemName", "审计之站")).json.success).toBe(true);
    expect((await put("SystemName", "审计之站")).json.success).toBe(true);
    expect(await onlyRow("option.update", "SystemName")).toMatchObject({
      ...by(root),
      target_type: "option",
      detail: { value: { from: defaultRaw("SystemName"), to: "审计之站" } },
    });
  });

  it("a secret: only its masked lengths, and the value is in no row", async () => {
    expect((await put("SMTPToken", "smtp-very-secret-1")).json.success).toBe(true);
    expect((await put("SMTPToken", "smtp-very-secret-22")).json.success).toBe(true);
    expect((await rowsOf("option.update", "SMTPToken")).map((r) => r.detail)).toEqual([
      { value: { from: "", to: maskSecret("smtp-very-secret-1") } },
      { value: { from: maskSecret("smtp-very-secret-1"), to: maskSecret("smtp-very-secret-22") } },
    ]);
    const text = await everyRowText();
    expect(text).not.toContain("smtp-very-secret");
  });

  it("a JSON table: only the entries that changed; the ratio reset is audited too", async () => {
    const ratios = JSON.parse(defaultRaw("ModelRatio")) as Record<string, number>;
    const [first] = Object.keys(ratios);
    expect((await put("ModelRatio", JSON.stringify({ ...ratios, [first!]: 42, "aud-model": 3 }))).json.success).toBe(true);
    expect((await onlyRow("option.update", "ModelRatio")).detail).toEqual({
      value: { from: { [first!]: ratios[first!] }, to: { [first!]: 42, "aud-model": 3 } },
    });
    expect((await call(resetRatio.POST, "POST", "/api/option/rest_model_ratio", as(root))).json.success).toBe(true);
    const rows = await rowsOf("option.update", "ModelRatio");
    expect(rows).toHaveLength(2);
    expect(rows[1]!.detail).toEqual({ value: { from: { [first!]: 42, "aud-model": 3 }, to: { [first!]: ratios[first!] } } });
  });

  it("a refused value writes nothing", async () => {
    expect((await put("QuotaPerUnit", "not a number")).json.success).toBe(false);
    expect((await rowsOf("option.update", "QuotaPerUnit")).length).toBe(0);
  });
});

describe("channel changes are audited, keys masked", () => {
  const KEYS = ["sk-audit-upstream-key-aaaa", "sk-audit-upstream-key-bbbbbb", "sk-audit-upstream-key-cccccccc"];
  const base = { type: 1, models: "gpt-4o", group: "default" };
  const create = async (body: Record<string, unknown>) => {
    const res = await call(channels.POST, "POST", "/api/channel/", as(admin, { ...base, ...body }));
    expect(res.json.success, res.json.message).toBe(true);
    return res.json.data as { id: number; name: string }[];
  };
  const update = async (body: Record<string, unknown>, caller = admin) => {
    const res = await call(channels.PUT, "PUT", "/api/channel/", as(caller, body));
    expect(res.json.success, res.json.message).toBe(true);
  };

  it("create (one and a batch), edit, status, key reveal and every delete", async () => {
    const [one] = await create({ name: "aud-ch", key: KEYS[0] });
    expect(await onlyRow("channel.create", one!.id)).toMatchObject({
      ...by(admin),
      target_type: "channel",
      detail: { name: "aud-ch", type: 1, group: "default", base_url: "", key: maskSecret(KEYS[0]) },
    });
    const pair = await create({ name: "aud-batch", key: `${KEYS[1]}\n${KEYS[2]}`, mode: "batch" });
    expect(pair).toHaveLength(2);
    for (const [i, ch] of pair.entries())
      expect((await onlyRow("channel.create", ch.id)).detail).toMatchObject({ key: maskSecret(KEYS[i + 1]) });

    await update({ id: one!.id, name: "aud-ch-2", priority: 5, key: KEYS[1] });
    expect((await onlyRow("channel.update", one!.id)).detail).toEqual({
      name: { from: "aud-ch", to: "aud-ch-2" },
      priority: { from: 0, to: 5 },
      key: { from: maskSecret(KEYS[0]), to: maskSecret(KEYS[1]) },
    });
    await update({ id: one!.id, status: 2 });
    expect((await rowsOf("channel.update", one!.id)).length).toBe(1);
    expect((await onlyRow("channel.status", one!.id)).detail).toEqual({ name: "aud-ch-2", status: { from: 1, to: 2 } });

    await markVerified(root.cookie); // the reveal asks root to step up (tests/api/step-up.test.ts)
    const revealed = await call(channelKey.POST, "POST", `/api/channel/${one!.id}/key`, { ...as(root), params: { id: String(one!.id) } });
    expect(revealed.json.data).toEqual({ key: KEYS[1] });
    expect(await onlyRow("channel.key_reveal", one!.id)).toMatchObject({ ...by(root), detail: { name: "aud-ch-2" } });

    const deleted = await call(channelOne.DELETE, "DELETE", `/api/channel/${pair[0]!.id}`, {
      ...as(admin),
      params: { id: String(pair[0]!.id) },
    });
    expect(deleted.json.success).toBe(true);
    expect((await onlyRow("channel.delete", pair[0]!.id)).detail).toEqual({ name: "aud-batch" });

    const [extra] = await create({ name: "aud-extra", key: "sk-audit-extra-key" });
    const batch = await call(channelBatch.POST, "POST", "/api/channel/batch", as(admin, { ids: [pair[1]!.id, extra!.id] }));
    expect(batch.json.data).toBe(2);
    for (const ch of [pair[1]!, extra!]) expect(await onlyRow("channel.delete_batch", ch.id)).toMatchObject(by(admin));

    // `one` is disabled (status 2).
    const cleared = await call(channelDisabled.DELETE, "DELETE", "/api/channel/disabled", as(admin));
    expect(cleared.json.data).toBeGreaterThanOrEqual(1);
    expect((await onlyRow("channel.delete_disabled", one!.id)).detail).toEqual({ name: "aud-ch-2" });

    const text = await everyRowText();
    for (const key of [...KEYS, "sk-audit-extra-key"]) expect(text).not.toContain(key);
  });

  it("an edit of the status alone writes only the status row", async () => {
    const [ch] = await create({ name: "aud-status", key: "sk-audit-status-key" });
    await update({ id: ch!.id, status: 2 });
    await update({ id: ch!.id, status: 1 });
    expect((await rowsOf("channel.update", ch!.id)).length).toBe(0);
    expect((await rowsOf("channel.status", ch!.id)).map((r) => r.detail.status)).toEqual([
      { from: 1, to: 2 },
      { from: 2, to: 1 },
    ]);
  });
});

describe("redemption codes are audited, never the codes", () => {
  it("create (count, quota, name), edit, status and delete", async () => {
    const made = await call(redemptions.POST, "POST", "/api/redemption/", as(admin, { name: "aud-codes", quota: 1234, count: 3 }));
    expect(made.json.success).toBe(true);
    const codes: string[] = made.json.data;
    const res = await auditPage({ action: "redemption.create", actor: admin.username });
    expect(res.json.data.items).toHaveLength(1);
    expect(res.json.data.items[0]).toMatchObject({
      ...by(admin),
      target_type: "redemption",
      detail: { name: "aud-codes", count: 3, quota: 1234 },
    });

    const row = await (await getDb()).redemption.findFirstOrThrow({ where: { name: "aud-codes" }, orderBy: { id: "asc" } });
    const put = (query: string, body: unknown) => call(redemptions.PUT, "PUT", `/api/redemption/${query}`, as(admin, body));
    expect((await put("", { id: row.id, name: "aud-renamed", quota: 99 })).json.success).toBe(true);
    expect((await onlyRow("redemption.update", row.id)).detail).toEqual({
      name: { from: "aud-codes", to: "aud-renamed" },
      quota: { from: 1234, to: 99 },
    });
    expect((await put("?status_only=true", { id: row.id, status: 2 })).json.success).toBe(true);
    expect((await onlyRow("redemption.status", row.id)).detail).toEqual({ name: "aud-renamed", status: { from: 1, to: 2 } });
    const del = await call(redemptionOne.DELETE, "DELETE", `/api/redemption/${row.id}`, { ...as(admin), params: { id: String(row.id) } });
    expect(del.json.success).toBe(true);
    expect((await onlyRow("redemption.delete", row.id)).detail).toEqual({ name: "aud-renamed" });

    const text = await everyRowText();
    for (const code of codes) expect(text).not.toContain(code);
  });
});

describe("log cleanup is audited", () => {
  it("with the cut-off and the count", async () => {
    const res = await call(logs.DELETE, "DELETE", "/api/log/?target_timestamp=1000", as(root));
    expect(res.json.success).toBe(true);
    const rows = (await auditPage({ action: "log.cleanup" })).json.data.items as AuditItem[];
    expect(rows[0]).toMatchObject({ ...by(root), target_type: "log", detail: { before: 1000, count: res.json.data } });
  });
});

describe("GET /api/audit/", () => {
  let seeded = 0;
  /** Rows written at known times by a known actor, for the filters. */
  async function seed() {
    const db = await getDb();
    const actor = await createUser({ username: `seed${++seeded}` });
    const rows = [
      { created_at: 1_000_000, action: "user.quota", target_id: "501" },
      { created_at: 1_000_100, action: "user.status", target_id: "502" },
      { created_at: 1_000_200, action: "user.quota", target_id: "502" },
    ];
    for (const r of rows) {
      await db.auditLog.create({
        data: { ...r, actor_id: actor.id, actor_name: actor.username, target_type: "user", ip: IP, detail: "{}" },
      });
    }
    return actor;
  }

  it("filters by actor (name or id), action, target and time range, newest first", async () => {
    const actor = await seed();
    const ids = async (q: Record<string, string | number>) =>
      ((await auditPage(q)).json.data.items as AuditItem[]).map((r) => `${r.action}@${r.target_id}`);
    expect(await ids({ actor: actor.username })).toEqual(["user.quota@502", "user.status@502", "user.quota@501"]);
    expect(await ids({ actor: actor.id })).toEqual(["user.quota@502", "user.status@502", "user.quota@501"]);
    expect(await ids({ actor: actor.username, action: "user.quota" })).toEqual(["user.quota@502", "user.quota@501"]);
    expect(await ids({ actor: actor.username, target: "502" })).toEqual(["user.quota@502", "user.status@502"]);
    expect(await ids({ actor: actor.username, start_timestamp: 1_000_050, end_timestamp: 1_000_150 })).toEqual(["user.status@502"]);
    expect(await ids({ actor: actor.username, start_timestamp: 1_000_100 })).toEqual(["user.quota@502", "user.status@502"]);
    expect(await ids({ actor: actor.username, end_timestamp: 1_000_000 })).toEqual(["user.quota@501"]);
    expect(await ids({ actor: "nobody-acted" })).toEqual([]);
  });

  it("finds an actor by the account's current name after a rename", async () => {
    const actor = await seed();
    const renamed = await call(users.PUT, "PUT", "/api/user/", as(root, { id: actor.id, username: `${actor.username}-new` }));
    expect(renamed.json.success, renamed.json.message).toBe(true);
    const page = (await auditPage({ actor: `${actor.username}-new`, action: "user.quota" })).json.data;
    expect(page.total).toBe(2);
    expect(page.items.every((r: AuditItem) => r.actor_name === actor.username)).toBe(true);
  });

  it("pages like the other lists", async () => {
    const actor = await seed();
    const page = (await auditPage({ actor: actor.username, p: 1, page_size: 2 })).json.data;
    expect(page).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect(page.items.map((r: AuditItem) => r.target_id)).toEqual(["501"]);
  });

  it("refuses an unknown action and a time no column holds, with a message", async () => {
    const unknown = await auditPage({ action: "user.fly" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain(AUDIT_MSG.unknownAction("user.fly"));
    const far = await auditPage({ start_timestamp: 99_999_999_999 });
    expect(far.status).toBe(400);
    expect(far.json.message).toContain(AUDIT_MSG.timeOutOfRange);
  });

  it("answers root only", async () => {
    expect((await auditPage({}, admin)).status).toBe(403);
    expect((await auditPage({}, user)).status).toBe(403);
    const anonymous = await call(audit.GET, "GET", "/api/audit/");
    expect(anonymous.status).toBe(401);
    expect((await auditPage({})).status).toBe(200);
  });

  it("stamps each row with the time it was written", async () => {
    const before = nowSeconds();
    await call(options.PUT, "PUT", "/api/option/", as(root, { key: "SystemName", value: `审计时间${before}` }));
    const [row] = (await auditPage({ action: "option.update", target: "SystemName" })).json.data.items as AuditItem[];
    expect(row!.created_at).toBeGreaterThanOrEqual(before);
    expect(row!.created_at).toBeLessThanOrEqual(nowSeconds());
  });
});

describe("the /audit page's filters from its URL", () => {
  it("keeps what the API accepts and drops what it would refuse, instead of failing the page", () => {
    const url = (values: Record<string, string>) => auditFiltersOf((key) => values[key] ?? "");
    expect(
      url({ actor: " root ", action: "user.quota", target_type: "user", target: "7", start_timestamp: "100", end_timestamp: "200" }),
    ).toEqual({
      actor: "root",
      action: "user.quota",
      target_type: "user",
      target: "7",
      start_timestamp: 100,
      end_timestamp: 200,
    });
    expect(url({ action: "user.fly", start_timestamp: "99999999999", end_timestamp: "soon" })).toEqual({
      actor: "",
      action: "",
      target_type: "",
      target: "",
      start_timestamp: 0,
      end_timestamp: 0,
    });
  });
});
