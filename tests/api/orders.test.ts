// Top-up orders through the console API: a user's own list (GET /api/user/topup/self), everyone's
// with filters (GET /api/user/topup, admin), and an admin marking an order paid (POST
// /api/user/topup/complete): credited once through creditOrder, with one top-up log row and one
// audit row; every refusal moves nothing. Route handlers on a real SQLite database.
import { beforeAll, describe, expect, it } from "vitest";
import * as audit from "@/app/api/audit/route";
import * as complete from "@/app/api/user/topup/complete/route";
import * as all from "@/app/api/user/topup/route";
import * as own from "@/app/api/user/topup/self/route";
import { getDb } from "@/lib/db";
import { orderFiltersOf } from "@/lib/payments/order-list";
import { createOrder, type NewOrder, quotaForAmount } from "@/lib/payments/orders";
import { type AdminOrderView, ORDER_MSG, type OrderView } from "@/lib/payments/order-view";
import { getOptions } from "@/lib/options";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";

type Caller = { id: number; cookie: string; username: string };
let root: Caller;
let admin: Caller;
let admin2: Caller;
let alice: Caller;
let bob: Caller;

const IP = "198.51.100.24";

beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, username: "root", cookie: await sessionCookieFor(row.id) };
  admin = await createUser({ username: "ordadmin", role: 10 });
  admin2 = await createUser({ username: "ordadmin2", role: 10 });
  alice = await createUser({ username: "OrdAlice" });
  bob = await createUser({ username: "ordbob" });
});

/** A pending order of `amount` US$ for `user` (quota from the options, as POST /api/user/pay fixes it). */
async function order(user: { id: number }, amount = 10, extra: Partial<NewOrder> = {}) {
  const o = await getOptions();
  return createOrder({
    user_id: user.id,
    amount,
    quota: quotaForAmount(amount, o),
    money_cents: amount * 730,
    currency: "CNY",
    payment_method: "zfb",
    ...extra,
  });
}

const qs = (query: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
const ownPage = (caller: Caller | null, query: Record<string, string | number> = {}) =>
  call(own.GET, "GET", `/api/user/topup/self?${qs(query)}`, caller ? { as: caller } : {});
const allPage = (caller: Caller, query: Record<string, string | number> = {}) =>
  call(all.GET, "GET", `/api/user/topup?${qs(query)}`, { as: caller });
const markPaid = (caller: Caller, body: unknown) => call(complete.POST, "POST", "/api/user/topup/complete", { as: caller, body, ip: IP });

/** What an order's credit can move: the user's balance, the order row, the top-up log rows and the audit rows. */
async function snapshot(userId: number, tradeNo: string) {
  const db = await getDb();
  const [user, row, logs, audits] = await Promise.all([
    db.user.findUniqueOrThrow({ where: { id: userId }, select: { quota: true } }),
    db.topUp.findUnique({ where: { trade_no: tradeNo } }),
    db.log.findMany({ where: { type: 1, content: { contains: tradeNo } } }),
    db.auditLog.findMany({ where: { action: "topup.complete" } }),
  ]);
  return { quota: user.quota, status: row?.status, completed_by: row?.completed_by, logs: logs.length, audits: audits.length };
}

describe("GET /api/user/topup/self", () => {
  it("needs a signed-in user", async () => {
    const res = await ownPage(null);
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
  });

  it("answers the caller's own orders only, newest first, paged, money with two decimals and the currency", async () => {
    const u = await createUser({ username: "ordself" });
    const first = await order(u, 1);
    const second = await order(u, 3, { payment_method: "wx" });
    const stripe = await order(u, 2, { payment_method: "stripe", currency: "usd", money_cents: 205 });
    await order(bob, 5);
    const db = await getDb();
    // Distinct creation times: newest first is by create_time, not by id.
    await db.topUp.update({ where: { id: first.id }, data: { create_time: 1_700_000_300 } });
    await db.topUp.update({ where: { id: second.id }, data: { create_time: 1_700_000_100 } });
    await db.topUp.update({ where: { id: stripe.id }, data: { create_time: 1_700_000_200 } });

    const res = await ownPage(u);
    expect(res.json.success).toBe(true);
    expect(res.json.data).toMatchObject({ page: 0, page_size: 10, total: 3 });
    const items = res.json.data.items as OrderView[];
    expect(items.map((i) => i.trade_no)).toEqual([first.trade_no, stripe.trade_no, second.trade_no]);
    expect(items[0]).toEqual({
      id: first.id,
      trade_no: first.trade_no,
      amount: 1,
      quota: 500_000,
      money: "7.30",
      currency: "CNY",
      payment_method: "zfb",
      status: "pending",
      create_time: 1_700_000_300,
      complete_time: 0,
    });
    expect(items[1]).toMatchObject({ money: "2.05", currency: "USD", payment_method: "stripe" });
    // An ordinary user never sees whose or the gateway's fields.
    expect(Object.keys(items[0]!)).not.toContain("user_id");
    expect(Object.keys(items[0]!)).not.toContain("gateway_ref");

    const page1 = await ownPage(u, { p: 1, page_size: 2 });
    expect(page1.json.data).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect((page1.json.data.items as OrderView[]).map((i) => i.trade_no)).toEqual([second.trade_no]);
  });

  it("is empty for a user without orders", async () => {
    const u = await createUser({ username: "ordnone" });
    expect((await ownPage(u)).json.data).toEqual({ items: [], page: 0, page_size: 10, total: 0 });
  });
});

describe("GET /api/user/topup (admin)", () => {
  it("refuses an ordinary user", async () => {
    const res = await allPage(alice);
    expect(res.status).toBe(403);
    expect(res.json.success).toBe(false);
    expect(res.json.data).toBeUndefined();
  });

  it("lists every user's orders with the username, newest first, and filters by user, status, method and time", async () => {
    const carol = await createUser({ username: "ordcarol" });
    const dave = await createUser({ username: "orddave" });
    const db = await getDb();
    const a = await order(carol, 1);
    const b = await order(carol, 2, { payment_method: "wx" });
    const c = await order(carol, 3, { payment_method: "stripe", currency: "usd", money_cents: 300 });
    const d = await order(dave, 4);
    await db.topUp.update({ where: { id: a.id }, data: { create_time: 1_600_000_000 } });
    await db.topUp.update({ where: { id: b.id }, data: { create_time: 1_600_000_100, status: "expired" } });
    await db.topUp.update({ where: { id: c.id }, data: { create_time: 1_600_000_200, status: "success", complete_time: 1_600_000_250 } });
    await db.topUp.update({ where: { id: d.id }, data: { create_time: 1_600_000_300 } });

    const trades = async (query: Record<string, string | number>) => {
      const res = await allPage(admin, { page_size: 100, ...query });
      expect(res.json.success, res.json.message).toBe(true);
      return (res.json.data.items as AdminOrderView[]).map((i) => i.trade_no);
    };

    const listed = await allPage(admin, { username: "ordcarol" });
    expect(listed.json.data.total).toBe(3);
    expect(listed.json.data.items[0]).toMatchObject({
      trade_no: c.trade_no,
      user_id: carol.id,
      username: "ordcarol",
      user_role: 1,
      user_gone: false,
      money: "3.00",
      currency: "USD",
      status: "success",
      complete_time: 1_600_000_250,
      completed_by: 0,
      completed_by_name: "",
    });
    // By name (in any case), by id; an unknown name matches nothing.
    expect(await trades({ username: "ordcarol" })).toEqual([c.trade_no, b.trade_no, a.trade_no]);
    expect(await trades({ username: "ORDCAROL" })).toEqual([c.trade_no, b.trade_no, a.trade_no]);
    expect(await trades({ username: String(dave.id) })).toEqual([d.trade_no]);
    expect(await trades({ username: " orddave " })).toEqual([d.trade_no]);
    expect(await trades({ username: "nobody-here" })).toEqual([]);
    // Status and method, alone and together.
    expect(await trades({ username: "ordcarol", status: "expired" })).toEqual([b.trade_no]);
    expect(await trades({ username: "ordcarol", status: "pending" })).toEqual([a.trade_no]);
    expect(await trades({ username: "ordcarol", payment_method: "stripe" })).toEqual([c.trade_no]);
    expect(await trades({ username: "ordcarol", payment_method: "wx", status: "pending" })).toEqual([]);
    // Creation time, both ends included.
    expect(await trades({ start_timestamp: 1_600_000_100, end_timestamp: 1_600_000_200 })).toEqual([c.trade_no, b.trade_no]);
    expect(await trades({ start_timestamp: 1_600_000_300, end_timestamp: 1_600_000_300 })).toEqual([d.trade_no]);
    expect(await trades({ end_timestamp: 1_600_000_000 })).toEqual([a.trade_no]);
    // Every filter at once.
    expect(
      await trades({
        username: "ordcarol",
        status: "success",
        payment_method: "stripe",
        start_timestamp: 1_600_000_200,
        end_timestamp: 1_600_000_200,
      }),
    ).toEqual([c.trade_no]);
    // Empty values filter nothing; paging.
    const paged = await allPage(admin, { username: "ordcarol", status: "", payment_method: "", p: 1, page_size: 2 });
    expect(paged.json.data).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect((paged.json.data.items as AdminOrderView[]).map((i) => i.trade_no)).toEqual([a.trade_no]);
    // Newest first over everyone.
    const everyone = await allPage(root, { page_size: 100 });
    const times = (everyone.json.data.items as AdminOrderView[]).map((i) => i.create_time);
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it("refuses an unknown status or method and a time past any Int column, with the envelope", async () => {
    for (const [query, message] of [
      [{ status: "paid" }, ORDER_MSG.statusInvalid],
      [{ payment_method: "paypal" }, ORDER_MSG.methodInvalid],
      [{ start_timestamp: 99_999_999_999 }, "时间超出范围"],
    ] as const) {
      const res = await allPage(admin, query);
      expect(res.status).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
    }
  });
});

describe("the /orders page's filters from its URL", () => {
  it("reads each value as the list route does, and drops one the route would refuse", () => {
    const url = (values: Record<string, string>) => orderFiltersOf((key) => values[key] ?? "");
    expect(url({ username: " alice ", status: "expired", payment_method: "stripe", start_timestamp: "100", end_timestamp: "200" })).toEqual(
      {
        username: "alice",
        status: "expired",
        payment_method: "stripe",
        start_timestamp: 100,
        end_timestamp: 200,
      },
    );
    expect(url({ status: "paid", payment_method: "paypal", start_timestamp: "99999999999", end_timestamp: "soon" })).toEqual({
      username: "",
      status: "",
      payment_method: "",
      start_timestamp: 0,
      end_timestamp: 0,
    });
  });
});

describe("POST /api/user/topup/complete", () => {
  it("refuses an ordinary user, even for its own order, moving nothing", async () => {
    const o = await order(alice);
    const before = await snapshot(alice.id, o.trade_no);
    const res = await markPaid(alice, { trade_no: o.trade_no });
    expect(res.status).toBe(403);
    expect(res.json.success).toBe(false);
    expect(await snapshot(alice.id, o.trade_no)).toEqual(before);
  });

  it("credits the order once: the balance, one top-up log row with the trade number, one audit row; a second time is refused", async () => {
    const o = await order(alice, 7);
    const before = await snapshot(alice.id, o.trade_no);
    expect(before).toMatchObject({ status: "pending", logs: 0 });

    const res = await markPaid(admin, { trade_no: ` ${o.trade_no} ` });
    expect(res.json).toEqual({
      success: true,
      message: ORDER_MSG.completed,
      data: { trade_no: o.trade_no, user_id: alice.id, quota: 3_500_000 },
    });
    const after = await snapshot(alice.id, o.trade_no);
    expect(after).toEqual({
      quota: before.quota + 3_500_000n,
      status: "success",
      completed_by: admin.id,
      logs: 1,
      audits: before.audits + 1,
    });
    const db = await getDb();
    const log = await db.log.findFirstOrThrow({ where: { type: 1, content: { contains: o.trade_no } } });
    expect(log).toMatchObject({ user_id: alice.id, username: "OrdAlice", quota: 3_500_000n });
    expect(log.content).toContain("由管理员 ordadmin 确认到账");
    const row = await db.topUp.findUniqueOrThrow({ where: { trade_no: o.trade_no } });
    expect(row.complete_time).toBeGreaterThan(0);

    // The audit row: who, from where, which order, what was credited.
    const trail = await call(audit.GET, "GET", `/api/audit/?${qs({ action: "topup.complete", target: o.id })}`, { as: root });
    expect(trail.json.data.items).toHaveLength(1);
    expect(trail.json.data.items[0]).toMatchObject({
      actor_id: admin.id,
      actor_name: "ordadmin",
      action: "topup.complete",
      target_type: "topup",
      target_id: String(o.id),
      ip: IP,
      detail: {
        trade_no: o.trade_no,
        user_id: alice.id,
        username: "OrdAlice",
        quota: 3_500_000,
        money: "51.10 CNY",
        payment_method: "zfb",
      },
    });

    // The admin list shows who completed it.
    const listed = await allPage(admin, { username: String(alice.id), status: "success" });
    expect(listed.json.data.items.find((i: AdminOrderView) => i.trade_no === o.trade_no)).toMatchObject({
      completed_by: admin.id,
      completed_by_name: "ordadmin",
    });

    // Again, by the same admin or by root: refused, nothing moves.
    for (const caller of [admin, root]) {
      const again = await markPaid(caller, { trade_no: o.trade_no });
      expect(again.status).toBe(400);
      expect(again.json).toEqual({ success: false, message: ORDER_MSG.alreadyPaid });
    }
    expect(await snapshot(alice.id, o.trade_no)).toEqual(after);
  });

  it("credits an expired order (the money arrived late)", async () => {
    const o = await order(bob, 2);
    await (await getDb()).topUp.update({ where: { id: o.id }, data: { status: "expired" } });
    const before = await snapshot(bob.id, o.trade_no);
    const res = await markPaid(admin, { trade_no: o.trade_no });
    expect(res.json.success, res.json.message).toBe(true);
    expect(await snapshot(bob.id, o.trade_no)).toMatchObject({ quota: before.quota + 1_000_000n, status: "success", logs: 1 });
  });

  it("refuses an unknown or missing order number", async () => {
    const audits = await (await getDb()).auditLog.count({ where: { action: "topup.complete" } });
    const unknown = await markPaid(admin, { trade_no: "USR1NOnothing1700000000" });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ success: false, message: ORDER_MSG.notFound });
    for (const body of [{}, { trade_no: "" }, { trade_no: "   " }, { trade_no: 12 }, { trade_no: "x".repeat(200) }]) {
      const res = await markPaid(admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(ORDER_MSG.notFound);
    }
    expect(await (await getDb()).auditLog.count({ where: { action: "topup.complete" } })).toBe(audits);
  });

  it("refuses the order of a deactivated user: nothing credited, the order stays pending", async () => {
    const gone = await createUser({ username: "ordgone" });
    const o = await order(gone, 3);
    await (await getDb()).user.update({ where: { id: gone.id }, data: { deleted_at: new Date() } });
    const before = await snapshot(gone.id, o.trade_no);
    const res = await markPaid(root, { trade_no: o.trade_no });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ success: false, message: ORDER_MSG.userGone });
    expect(await snapshot(gone.id, o.trade_no)).toEqual(before);
    expect(before.status).toBe("pending");
    const listed = await allPage(admin, { username: String(gone.id) });
    expect(listed.json.data.items[0]).toMatchObject({ username: "ordgone", user_gone: true });
  });

  it("follows the user-editing rule: an admin credits only users it outranks, root also itself", async () => {
    const ownOrder = await order(admin, 1);
    const peerOrder = await order(admin2, 1);
    const rootOrder = await order(root, 1);
    for (const o of [ownOrder, peerOrder, rootOrder]) {
      const owner = o === ownOrder ? admin : o === peerOrder ? admin2 : root;
      const before = await snapshot(owner.id, o.trade_no);
      const res = await markPaid(admin, { trade_no: o.trade_no });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ success: false, message: ORDER_MSG.outranked });
      expect(await snapshot(owner.id, o.trade_no)).toEqual(before);
    }
    // Root outranks the admins and may credit its own order.
    for (const [o, owner] of [
      [peerOrder, admin2],
      [rootOrder, root],
    ] as const) {
      const before = await snapshot(owner.id, o.trade_no);
      const res = await markPaid(root, { trade_no: o.trade_no });
      expect(res.json.success, res.json.message).toBe(true);
      expect(await snapshot(owner.id, o.trade_no)).toMatchObject({
        quota: before.quota + 500_000n,
        status: "success",
        completed_by: root.id,
      });
    }
  });
});
