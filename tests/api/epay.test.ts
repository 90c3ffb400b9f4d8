// EPay end to end through the route handlers: POST /api/user/pay prices and writes the order and
// answers the signed form, which the mock gateway (tests/mocks/epay.ts, on loopback) accepts; the
// gateway's notice to /api/user/epay/notify credits it exactly once. Every refusal answers the
// envelope (pay) or `fail` (notify), writes nothing and moves no quota.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { defaultRaw, type OptionKey } from "@/lib/options/registry";
import { TOPUP_MSG } from "@/lib/payments/schemas";
import { createOrder, expireOrder, ORDER_STATUS } from "@/lib/payments/orders";
import { EPAY_NOTIFY_MAX_BYTES } from "@/lib/payments/epay-notify";
import { findPaymentReturn, returnedTradeNo } from "@/lib/payments/return";
import { call, createUser } from "@/tests/helpers/api";
import { loggedLines, spyOnLog } from "@/tests/helpers/log";
import { type MockEpay, type NoticeOverrides, startMockEpay } from "@/tests/mocks/epay";
import * as payRoute from "@/app/api/user/pay/route";
import * as notifyRoute from "@/app/api/user/epay/notify/route";

type Caller = { id: number; username: string; cookie: string };

const PID = "1001";
const KEY = "merchant-key-7f3a";
const SERVER = "https://qiao.example.com";
/** 10 US$ at the default QuotaPerUnit. */
const TEN_DOLLARS = 5_000_000n;

let gw: MockEpay;
const changed = new Set<OptionKey>();
async function setOption(key: OptionKey, value: string) {
  changed.add(key);
  await updateOption(key, value);
}

async function enableEpay() {
  await setOption("ServerAddress", `${SERVER}/`);
  await setOption("PayAddress", gw.url);
  await setOption("EpayId", PID);
  await setOption("EpayKey", KEY);
}

/** The notify route as Next calls it: a GET with the notice in the query, or a POSTed form. */
async function sendNotice(url: URL, method: "GET" | "POST", body: URLSearchParams | null, headers: Record<string, string> = {}) {
  const init: RequestInit =
    method === "GET" ? { method } : { method, body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } };
  const res = await (method === "GET" ? notifyRoute.GET : notifyRoute.POST)(new Request(url, init));
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
}

const NOTIFY_URL = `${SERVER}/api/user/epay/notify`;

let seq = 0;
const newUser = (fields: { group?: string } = {}) => createUser({ username: `ep${Date.now().toString(36)}${seq++}`, ...fields });

const pay = (as: Caller | null, body: unknown) =>
  as ? call(payRoute.POST, "POST", "/api/user/pay", { as, body }) : call(payRoute.POST, "POST", "/api/user/pay", { body });

async function ordersOf(userId: number) {
  const db = await getDb();
  return db.topUp.findMany({ where: { user_id: userId }, orderBy: { id: "asc" } });
}

async function state(userId: number) {
  const db = await getDb();
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { quota: true } });
  const logs = await db.log.findMany({ where: { user_id: userId, type: 1 } });
  return { quota: user.quota, orders: await ordersOf(userId), logs };
}

/** A user with a pending order of 10 US$ paid by `method`, accepted by the gateway. */
async function pendingOrder(method: "zfb" | "wx" = "zfb") {
  const user = await newUser();
  const res = await pay(user, { amount: 10, top_up_code: "", payment_method: method });
  expect(res.json.success, res.json.message).toBe(true);
  const order = await gw.submit(res.json.data);
  return { user, tradeNo: order.out_trade_no };
}

let warn: ReturnType<typeof spyOnLog>;

beforeAll(async () => {
  await getDb();
  gw = await startMockEpay({
    pid: PID,
    key: KEY,
    deliver: async (url, method, body) => {
      const { status, text } = await sendNotice(url, method, body);
      return { status, text };
    },
  });
});

afterAll(async () => {
  await gw.close();
});

beforeEach(async () => {
  warn = spyOnLog();
  await enableEpay();
});

afterEach(async () => {
  warn.mockRestore();
  for (const key of changed) await updateOption(key, defaultRaw(key));
  changed.clear();
});

describe("POST /api/user/pay", () => {
  it("needs a signed-in user", async () => {
    const res = await pay(null, { amount: 10, payment_method: "zfb" });
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
  });

  it("answers the signed form for the gateway, priced on the server from Price × TopupGroupRatio, and writes the order pending", async () => {
    await setOption("Price", "7.3");
    await setOption("TopupGroupRatio", JSON.stringify({ default: 1, vip: 0.8 }));
    const user = await newUser();
    const vip = await newUser({ group: "vip" });

    // Whatever the client says the price is, the server decides it.
    const res = await pay(user, { amount: 10, top_up_code: "", payment_method: "zfb", money: "0.01" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, message: "success", url: `${gw.url}/submit.php` });
    const form = res.json.data;
    expect(Object.keys(form).sort()).toEqual(
      ["device", "money", "name", "notify_url", "out_trade_no", "pid", "return_url", "sign", "sign_type", "type"].sort(),
    );
    expect(form).toMatchObject({
      pid: PID,
      type: "alipay",
      money: "73.00",
      name: "TUC10",
      device: "pc",
      sign_type: "MD5",
      notify_url: NOTIFY_URL,
      return_url: `${SERVER}/topup`,
    });
    expect(form.out_trade_no).toMatch(new RegExp(`^USR${user.id}NO[A-Za-z0-9]{6}\\d+$`));
    // The gateway checks the signature with the merchant key (its own MD5, not ours).
    const accepted = await gw.submit(form);
    expect(accepted).toMatchObject({ out_trade_no: form.out_trade_no, money: "73.00", type: "alipay" });

    const [order] = await ordersOf(user.id);
    expect(order).toMatchObject({
      trade_no: form.out_trade_no,
      amount: 10,
      quota: TEN_DOLLARS,
      money_cents: 7300,
      currency: "CNY",
      payment_method: "zfb",
      status: ORDER_STATUS.pending,
      complete_time: 0,
      gateway_ref: "",
    });

    const wx = await pay(vip, { amount: 10, payment_method: "wx" });
    expect(wx.json.data).toMatchObject({ type: "wxpay", money: "58.40" });
    await gw.submit(wx.json.data);
    expect((await ordersOf(vip.id))[0]).toMatchObject({ money_cents: 5840, payment_method: "wx" });
  });

  it("sends the gateway back to CustomCallbackAddress when it is set, without a trailing slash", async () => {
    await setOption("CustomCallbackAddress", "https://cb.example.com/qiao//");
    const res = await pay(await newUser(), { amount: 10, payment_method: "zfb" });
    expect(res.json.data).toMatchObject({
      notify_url: "https://cb.example.com/qiao/api/user/epay/notify",
      return_url: "https://cb.example.com/qiao/topup",
    });
  });

  it("refuses, writing nothing: online top-up off, below MinTopUp, not an integer, a method it does not take, too large", async () => {
    const user = await newUser();
    const refused = async (body: unknown, status: number, message: string) => {
      const res = await pay(user, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
      expect(res.json.data).toBeUndefined();
    };
    await setOption("MinTopUp", "5");
    await refused({ amount: 4, payment_method: "zfb" }, 400, "充值数量不能小于5");
    await refused({ amount: 0, payment_method: "wx" }, 400, "充值数量不能小于5");
    for (const amount of [1.5, "10", null, 1e300]) await refused({ amount, payment_method: "zfb" }, 400, TOPUP_MSG.amountInvalid);
    for (const payment_method of ["alipay", "stripe", "", undefined, 1]) {
      await refused({ amount: 10, payment_method }, 400, TOPUP_MSG.methodInvalid);
    }
    // 300 000 000 × 7.30 does not fit the orders table (cents in a 32-bit column).
    await refused({ amount: 300_000_000, payment_method: "zfb" }, 400, TOPUP_MSG.tooLarge);
    await setOption("EpayKey", "");
    await refused({ amount: 10, payment_method: "zfb" }, 400, TOPUP_MSG.disabled);
    expect(await ordersOf(user.id)).toEqual([]);
    expect(gw.submissions.filter((s) => s.form.out_trade_no?.startsWith(`USR${user.id}NO`))).toEqual([]);
  });

  it("creates at most CRITICAL_RATE_LIMIT (20) orders per user in the window; refused amounts do not count", async () => {
    await setOption("MinTopUp", "5");
    const user = await newUser();
    for (let i = 0; i < 5; i++) expect((await pay(user, { amount: 1, payment_method: "zfb" })).status).toBe(400);
    for (let i = 0; i < 20; i++) expect((await pay(user, { amount: 10, payment_method: i % 2 ? "wx" : "zfb" })).json.success).toBe(true);
    const res = await pay(user, { amount: 10, payment_method: "zfb" });
    expect(res.status).toBe(429);
    expect(res.json).toEqual({ success: false, message: TOPUP_MSG.tooManyOrders });
    expect(await ordersOf(user.id)).toHaveLength(20);
    // Another user is not held up.
    expect((await pay(await newUser(), { amount: 10, payment_method: "zfb" })).json.success).toBe(true);
  });
});

describe("GET and POST /api/user/epay/notify", () => {
  it("credits a paid order once: success, the order's quota, one top-up log row with the trade number; a replay changes nothing", async () => {
    const { user, tradeNo } = await pendingOrder();
    const reply = await gw.notify(tradeNo);
    expect(reply).toEqual({ status: 200, text: "success" });
    const { params } = gw.notifications.at(-1)!;

    let s = await state(user.id);
    expect(s.quota).toBe(TEN_DOLLARS);
    expect(s.orders[0]).toMatchObject({ status: ORDER_STATUS.success, gateway_ref: params.trade_no, completed_by: 0 });
    expect(s.orders[0]!.complete_time).toBeGreaterThan(0);
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]!.quota).toBe(TEN_DOLLARS);
    expect(s.logs[0]!.content).toContain(tradeNo);
    expect(s.logs[0]!.content).toContain("73.00");

    // The gateway repeats its notice until it reads success: each repeat answers success again.
    for (let i = 0; i < 3; i++) expect(await gw.notify(tradeNo)).toEqual({ status: 200, text: "success" });
    expect(await gw.notify(tradeNo, {}, "POST")).toEqual({ status: 200, text: "success" });
    s = await state(user.id);
    expect(s.quota).toBe(TEN_DOLLARS);
    expect(s.logs).toHaveLength(1);
  });

  it("answers plain text, never the JSON envelope", async () => {
    const { tradeNo } = await pendingOrder();
    const url = new URL(NOTIFY_URL);
    for (const [k, v] of Object.entries(gw.notice(tradeNo))) url.searchParams.set(k, v);
    const ok = await sendNotice(url, "GET", null);
    expect(ok).toEqual({ status: 200, text: "success", type: "text/plain; charset=utf-8" });
    const bad = await sendNotice(new URL(NOTIFY_URL), "GET", null);
    expect(bad).toEqual({ status: 200, text: "fail", type: "text/plain; charset=utf-8" });
  });

  it("takes the notice as a POSTed form, urlencoded or multipart", async () => {
    const a = await pendingOrder("wx");
    expect(await gw.notify(a.tradeNo, {}, "POST")).toEqual({ status: 200, text: "success" });
    expect((await state(a.user.id)).quota).toBe(TEN_DOLLARS);

    const b = await pendingOrder();
    const form = new FormData();
    for (const [k, v] of Object.entries(gw.notice(b.tradeNo))) form.set(k, v);
    const res = await notifyRoute.POST(new Request(NOTIFY_URL, { method: "POST", body: form }));
    expect(await res.text()).toBe("success");
    expect((await state(b.user.id)).quota).toBe(TEN_DOLLARS);
  });

  it("credits an order paid with the other EPay method (the gateway let the payer switch), and says so in the server log", async () => {
    const { user, tradeNo } = await pendingOrder("zfb");
    warn.mockClear();
    expect(await gw.notify(tradeNo, { type: "wxpay" })).toEqual({ status: 200, text: "success" });
    const s = await state(user.id);
    expect(s.quota).toBe(TEN_DOLLARS);
    expect(s.orders[0]).toMatchObject({ status: ORDER_STATUS.success, payment_method: "zfb" });
    expect(String(warn.mock.calls.at(-1)?.[0])).toMatch(/paid with wxpay, ordered as zfb: credited/);
  });

  it("credits an order that had expired when its payment arrives", async () => {
    const { user, tradeNo } = await pendingOrder();
    expect(await expireOrder(tradeNo)).toBe(true);
    expect(await gw.notify(tradeNo)).toEqual({ status: 200, text: "success" });
    expect((await state(user.id)).orders[0]!.status).toBe(ORDER_STATUS.success);
    expect((await state(user.id)).quota).toBe(TEN_DOLLARS);
  });

  it("acknowledges a genuine notice that reports no payment, crediting nothing", async () => {
    const { user, tradeNo } = await pendingOrder();
    expect(await gw.notify(tradeNo, { trade_status: "WAIT_BUYER_PAY" })).toEqual({ status: 200, text: "success" });
    const s = await state(user.id);
    expect(s).toMatchObject({ quota: 0n, logs: [] });
    expect(s.orders[0]!.status).toBe(ORDER_STATUS.pending);
    // Paid later after all: still credited.
    expect(await gw.notify(tradeNo)).toEqual({ status: 200, text: "success" });
    expect((await state(user.id)).quota).toBe(TEN_DOLLARS);
  });

  describe("refuses with `fail`, crediting nothing and logging why (never the key)", () => {
    /** Sends `attempt` for a fresh pending order; expects `fail`, the order pending, no quota, no log row. */
    async function expectRefused(
      attempt: (order: { tradeNo: string; user: Caller }) => Promise<{ text: string }>,
      reason: RegExp,
      method: "zfb" | "wx" = "zfb",
    ) {
      const order = await pendingOrder(method);
      warn.mockClear();
      const reply = await attempt(order);
      expect(reply.text).toBe("fail");
      const s = await state(order.user.id);
      expect(s.quota).toBe(0n);
      expect(s.logs).toEqual([]);
      expect(s.orders).toHaveLength(1);
      expect(s.orders[0]).toMatchObject({ status: ORDER_STATUS.pending, gateway_ref: "", complete_time: 0 });
      const logged = loggedLines(warn)
        .map((l) => `${l.gateway}: ${l.msg} ${JSON.stringify(l.detail)}`)
        .join("\n");
      expect(logged).toMatch(reason);
      expect(warn.mock.calls.join("\n")).not.toContain(KEY);
      // The genuine notice still credits it afterwards: nothing was spent by the refusal.
      expect(await gw.notify(order.tradeNo)).toEqual({ status: 200, text: "success" });
      expect((await state(order.user.id)).quota).toBe(TEN_DOLLARS);
    }
    const notifyWith =
      (o: NoticeOverrides, method: "GET" | "POST" = "GET") =>
      (x: { tradeNo: string }) =>
        gw.notify(x.tradeNo, o, method);

    it("a forged signature, or one made with another key", async () => {
      await expectRefused(notifyWith({ badSign: true }), /epay: bad signature/);
      await expectRefused(notifyWith({ key: "guessed-key" }), /epay: bad signature/);
      await expectRefused(notifyWith({ badSign: true }, "POST"), /epay: bad signature/);
    });

    it("a notice without a signature, or of another sign_type", async () => {
      const without = async ({ tradeNo }: { tradeNo: string }) => {
        const url = new URL(NOTIFY_URL);
        for (const [k, v] of Object.entries(gw.notice(tradeNo))) if (k !== "sign") url.searchParams.set(k, v);
        return sendNotice(url, "GET", null);
      };
      await expectRefused(without, /epay: bad signature/);
      await expectRefused(({ tradeNo }) => {
        const url = new URL(NOTIFY_URL);
        for (const [k, v] of Object.entries({ ...gw.notice(tradeNo), sign_type: "RSA" })) url.searchParams.set(k, v);
        return sendNotice(url, "GET", null);
      }, /epay: sign_type RSA/);
    });

    it("another merchant's pid, signed with our key", async () => {
      await expectRefused(notifyWith({ pid: "1002" }), /epay: pid is not ours/);
    });

    it("an unknown trade number, or ours in other letter case", async () => {
      await expectRefused(notifyWith({ out_trade_no: "USR1NOabcdef1700000000" }), /epay: unknown order/);
      await expectRefused(({ tradeNo }) => gw.notify(tradeNo, { out_trade_no: tradeNo.toLowerCase() }), /epay: unknown order/);
    });

    it("a wrong amount", async () => {
      await expectRefused(notifyWith({ money: "0.01" }), /epay: does not match the order: paid 1 cents, order 7300/);
      await expectRefused(notifyWith({ money: "73.01" }), /does not match the order/);
      await expectRefused(notifyWith({ money: "730.0" }), /does not match the order/);
      for (const money of ["73.001", "-73.00", "73,00", "", "1e3", "NaN"]) {
        await expectRefused(notifyWith({ money }), /epay: (money is not an amount|bad signature)/);
      }
    });

    it("a payment type that is not EPay's", async () => {
      await expectRefused(notifyWith({ type: "qqpay" }), /epay: type qqpay/);
      await expectRefused(notifyWith({ type: "" }), /epay: type/);
    });

    it("a notice while online top-up is not configured", async () => {
      await expectRefused(async (x) => {
        await setOption("EpayKey", "");
        const reply = await gw.notify(x.tradeNo);
        await setOption("EpayKey", KEY);
        return reply;
      }, /epay: online top-up is not configured/);
    });

    it("a parameter given twice, even when one copy is the signed one", async () => {
      await expectRefused(({ tradeNo }) => {
        const url = new URL(NOTIFY_URL);
        for (const [k, v] of Object.entries(gw.notice(tradeNo))) url.searchParams.set(k, v);
        url.searchParams.append("money", "0.01");
        return sendNotice(url, "GET", null);
      }, /epay: parameter money given twice/);
      await expectRefused(({ tradeNo }) => {
        const body = new URLSearchParams(gw.notice(tradeNo));
        body.append("out_trade_no", "USR1NOabcdef1700000000");
        return sendNotice(new URL(NOTIFY_URL), "POST", body);
      }, /epay: parameter out_trade_no given twice/);
    });

    it("a POST mixing a query with its body, or a body that is not a form", async () => {
      await expectRefused(({ tradeNo }) => {
        const notice = gw.notice(tradeNo);
        const url = new URL(NOTIFY_URL);
        url.searchParams.set("money", notice.money!);
        return sendNotice(url, "POST", new URLSearchParams(notice));
      }, /epay: a POST with a query string/);
      await expectRefused(async ({ tradeNo }) => {
        const res = await notifyRoute.POST(
          new Request(NOTIFY_URL, {
            method: "POST",
            body: JSON.stringify(gw.notice(tradeNo)),
            headers: { "content-type": "application/json" },
          }),
        );
        return { text: await res.text() };
      }, /epay: content type application\/json/);
    });

    it("a body over the cap", async () => {
      await expectRefused(({ tradeNo }) => {
        const body = new URLSearchParams({ ...gw.notice(tradeNo), pad: "x".repeat(EPAY_NOTIFY_MAX_BYTES) });
        return sendNotice(new URL(NOTIFY_URL), "POST", body);
      }, /epay: body over 16384 bytes/);
    });

    it("a Stripe order named in an EPay notice", async () => {
      const user = await newUser();
      const order = await createOrder({
        user_id: user.id,
        amount: 10,
        quota: TEN_DOLLARS,
        money_cents: 800,
        currency: "usd",
        payment_method: "stripe",
      });
      // The gateway never saw a Stripe order: a signed notice of another order, renamed to it.
      const carrier = await pendingOrder();
      warn.mockClear();
      expect(await gw.notify(carrier.tradeNo, { out_trade_no: order.trade_no, money: "8.00" })).toMatchObject({ text: "fail" });
      expect(warn.mock.calls.join(" ")).toMatch(/does not match the order: method stripe/);
      expect((await state(user.id)).quota).toBe(0n);
    });

    it("an order whose user is gone", async () => {
      const { user, tradeNo } = await pendingOrder();
      const db = await getDb();
      await db.user.update({ where: { id: user.id }, data: { deleted_at: new Date() } });
      warn.mockClear();
      expect(await gw.notify(tradeNo)).toMatchObject({ text: "fail" });
      expect(warn.mock.calls.join(" ")).toMatch(/the order's user no longer exists/);
      const s = await state(user.id);
      expect(s).toMatchObject({ quota: 0n, logs: [] });
      expect(s.orders[0]!.status).toBe(ORDER_STATUS.pending);
    });
  });
});

describe("the wallet's return banner lookup", () => {
  it("reads the order number from the return URL and shows only the signed-in user's own order, as the database has it", async () => {
    expect(returnedTradeNo({ out_trade_no: "A", trade_no: "B" })).toBe("A");
    expect(returnedTradeNo({ trade_no: "B" })).toBe("B");
    expect(returnedTradeNo({ out_trade_no: ["A", "C"] })).toBeNull();
    expect(returnedTradeNo({ out_trade_no: "x".repeat(200) })).toBeNull();
    expect(returnedTradeNo({})).toBeNull();

    const { user, tradeNo } = await pendingOrder();
    const other = await newUser();
    expect(await findPaymentReturn(other.id, tradeNo)).toBeNull();
    expect(await findPaymentReturn(user.id, "USR1NOnope")).toBeNull();
    expect(await findPaymentReturn(user.id, tradeNo)).toEqual({
      trade_no: tradeNo,
      status: "pending",
      quota: Number(TEN_DOLLARS),
      money: "73.00",
      currency: "CNY",
      payment_method: "zfb",
    });
    await gw.notify(tradeNo);
    expect(await findPaymentReturn(user.id, tradeNo)).toMatchObject({ status: "success" });
  });
});
