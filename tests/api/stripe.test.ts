// Stripe Checkout top-up against a mock Stripe API on loopback (tests/mocks/stripe.ts), driven
// through the official package: the quote (POST /api/user/stripe/amount) and its refusals, the
// order and Checkout Session (POST /api/user/stripe/pay) with the exact amount Stripe is asked to
// charge, and the webhook (POST /api/stripe/webhook, served over HTTP so the mock's signed
// deliveries reach it byte for byte): credited once, replays, forgeries, mismatches, unpaid and
// expired sessions.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type MockStripe, startMockStripe, stripeSignature } from "@/tests/mocks/stripe";

// STRIPE_API_BASE_URL is read once, when lib/env.ts loads: the mock starts first, and everything
// that loads lib/env.ts is imported after.
const stripe: MockStripe = await startMockStripe();
process.env.STRIPE_API_BASE_URL = stripe.url;

const { call, createUser } = await import("@/tests/helpers/api");
const { serveRoute } = await import("@/tests/helpers/serve-route");
const { getDb } = await import("@/lib/db");
const { updateOption } = await import("@/lib/options");
const { defaultRaw } = await import("@/lib/options/registry");
const { TOPUP_MSG } = await import("@/lib/payments/schemas");
const { createOrder } = await import("@/lib/payments/orders");
const amountRoute = await import("@/app/api/user/stripe/amount/route");
const payRoute = await import("@/app/api/user/stripe/pay/route");
const webhookRoute = await import("@/app/api/stripe/webhook/route");

type OptionKey = Parameters<typeof defaultRaw>[0];
type Caller = { id: number; cookie: string };

const db = await getDb();
const webhook = await serveRoute(webhookRoute.POST);
stripe.webhookUrl = `${webhook.url}/api/stripe/webhook`;
stripe.addPrice("price_usd", "usd", "prod_topup");
stripe.addPrice("price_eur", "eur");
stripe.addPrice("price_jpy", "jpy");
stripe.addPrice("price_kwd", "kwd");

const changed = new Set<OptionKey>();
async function setOption(key: OptionKey, value: string) {
  changed.add(key);
  await updateOption(key, value);
}

async function enableStripe(priceId = "price_usd") {
  await setOption("ServerAddress", "https://qiao.example.com/");
  await setOption("StripeApiSecret", stripe.secretKey);
  await setOption("StripeWebhookSecret", stripe.webhookSecret);
  await setOption("StripePriceId", priceId);
}

let seq = 0;
/** A fresh user for each scenario, so balances, orders and the order rate limit stay its own. */
async function newUser(fields: { group?: string; email?: string } = {}) {
  const user = await createUser({ username: `st${Date.now().toString(36)}${++seq}`, group: fields.group });
  if (fields.email) await db.user.update({ where: { id: user.id }, data: { email: fields.email } });
  return user;
}

afterEach(async () => {
  for (const key of changed) await updateOption(key, defaultRaw(key));
  changed.clear();
  stripe.refuseSessions = null;
});

afterAll(async () => {
  await webhook.close();
  await stripe.close();
});

const quote = (as: Caller | undefined, body: unknown) => call(amountRoute.POST, "POST", "/api/user/stripe/amount", { as, body });
const pay = (as: Caller | undefined, body: unknown) => call(payRoute.POST, "POST", "/api/user/stripe/pay", { as, body });
const ordersOf = (userId: number) => db.topUp.findMany({ where: { user_id: userId } });
const quotaOf = async (userId: number) => (await db.user.findUniqueOrThrow({ where: { id: userId } })).quota;
const topUpLogs = (userId: number) => db.log.findMany({ where: { user_id: userId, type: 1 } });

function expectRefused(
  res: { status: number; json: { success: boolean; message: string; data?: unknown } },
  message: string,
  status = 400,
) {
  expect(res.status, res.json.message).toBe(status);
  expect(res.json.success).toBe(false);
  expect(res.json.message).toContain(message);
  expect(res.json.data).toBeUndefined();
}

/** Starts a payment for a fresh user and answers the user, its order and the mock's session. */
async function startPayment(amount = 1, fields: { group?: string; email?: string } = {}) {
  const user = await newUser(fields);
  const res = await pay(user, { amount, payment_method: "stripe" });
  expect(res.json.success, res.json.message).toBe(true);
  const [order] = await ordersOf(user.id);
  const session = stripe.sessions.get(order!.gateway_ref)!;
  expect(session).toBeDefined();
  return { user, order: order!, session, payLink: res.json.data.pay_link as string };
}

describe("POST /api/user/stripe/amount", () => {
  it("needs a signed-in user", async () => {
    expectRefused(await quote(undefined, { amount: 1 }), "未登录", 401);
  });

  it("refuses while Stripe is not configured (secret key, webhook secret and price id)", async () => {
    const user = await newUser();
    expectRefused(await quote(user, { amount: 1 }), TOPUP_MSG.stripeDisabled);
    await setOption("StripeApiSecret", stripe.secretKey);
    await setOption("StripePriceId", "price_usd");
    expectRefused(await quote(user, { amount: 1 }), TOPUP_MSG.stripeDisabled);
  });

  it("prices amount × StripeUnitPrice × the group's TopupGroupRatio in the price's currency", async () => {
    await enableStripe();
    const [user, vip] = [await newUser(), await newUser({ group: "vip" })];
    expect((await quote(user, { amount: 1 })).json).toEqual({ success: true, message: "", data: "8.00", currency: "USD" });
    await setOption("StripeUnitPrice", "7.3");
    await setOption("TopupGroupRatio", JSON.stringify({ default: 1, vip: 0.9 }));
    expect((await quote(user, { amount: 3 })).json.data).toBe("21.90");
    expect((await quote(vip, { amount: 10 })).json.data).toBe("65.70");
    // Exact decimals, rounded once, half up.
    await setOption("StripeUnitPrice", "0.335");
    expect((await quote(user, { amount: 1 })).json.data).toBe("0.34");
    await setOption("StripeUnitPrice", "0.3349");
    expect((await quote(user, { amount: 1 })).json.data).toBe("0.33");
    // While the console shows quota, the amount is in quota units: 500 000 of them are US$1.
    await setOption("StripeUnitPrice", "8");
    await setOption("DisplayInCurrencyEnabled", "false");
    expect((await quote(user, { amount: 500_000 })).json.data).toBe("8.00");
    await setOption("StripePriceId", "price_eur");
    expect((await quote(user, { amount: 1_000_000 })).json).toMatchObject({ data: "16.00", currency: "EUR" });
  });

  it("refuses amounts below MinTopUp with the spec's text, and non-integers, before asking Stripe", async () => {
    await enableStripe();
    await setOption("MinTopUp", "5");
    const user = await newUser();
    const before = stripe.requests.length;
    expectRefused(await quote(user, { amount: 4 }), "充值数量不能小于5");
    expectRefused(await quote(user, { amount: 5.5 }), TOPUP_MSG.amountInvalid);
    expectRefused(await quote(user, { amount: "5" }), TOPUP_MSG.amountInvalid);
    expect(stripe.requests.length).toBe(before);
    expect((await quote(user, { amount: 5 })).json.data).toBe("40.00");
  });

  it("refuses a price in a currency not counted in hundredths (JPY, KWD)", async () => {
    const user = await newUser();
    await enableStripe("price_jpy");
    expectRefused(await quote(user, { amount: 1 }), TOPUP_MSG.stripeCurrency("JPY"));
    await setOption("StripePriceId", "price_kwd");
    expectRefused(await quote(user, { amount: 1 }), TOPUP_MSG.stripeCurrency("KWD"));
  });

  it("reads the price once per few minutes, and says what Stripe answered when it refuses", async () => {
    const user = await newUser();
    await enableStripe("price_eur");
    const reads = () => stripe.requests.filter((r) => r.path === "/v1/prices/price_eur").length;
    const before = reads();
    await quote(user, { amount: 1 });
    await quote(user, { amount: 2 });
    expect(reads()).toBe(before === 0 ? 1 : before);
    await setOption("StripePriceId", "price_missing");
    expectRefused(await quote(user, { amount: 1 }), "Stripe 请求失败：No such price: 'price_missing'", 502);
    await setOption("StripePriceId", "price_usd");
    await setOption("StripeApiSecret", "sk_test_wrong_key_0000");
    expectRefused(await quote(user, { amount: 1 }), "Invalid API Key provided", 502);
    expect(stripe.requests.at(-1)!.authorization).toBe("Bearer sk_test_wrong_key_0000");
  });
});

describe("POST /api/user/stripe/pay", () => {
  it("refuses (and writes no order): signed out, Stripe off, another method, below the minimum, a zero-decimal currency", async () => {
    const user = await newUser();
    expectRefused(await pay(undefined, { amount: 1, payment_method: "stripe" }), "未登录", 401);
    expectRefused(await pay(user, { amount: 1, payment_method: "stripe" }), TOPUP_MSG.stripeDisabled);
    await enableStripe();
    expectRefused(await pay(user, { amount: 1, payment_method: "zfb" }), TOPUP_MSG.methodInvalid);
    expectRefused(await pay(user, { amount: 1 }), TOPUP_MSG.methodInvalid);
    await setOption("MinTopUp", "2");
    expectRefused(await pay(user, { amount: 1, payment_method: "stripe" }), "充值数量不能小于2");
    await setOption("StripePriceId", "price_jpy");
    expectRefused(await pay(user, { amount: 2, payment_method: "stripe" }), TOPUP_MSG.stripeCurrency("JPY"));
    expect(await ordersOf(user.id)).toEqual([]);
  });

  it("writes the pending order and asks Stripe to charge exactly the quote, under the price's product", async () => {
    await enableStripe();
    await setOption("StripeUnitPrice", "7.3");
    await setOption("TopupGroupRatio", JSON.stringify({ default: 1, vip: 0.9 }));
    const { user, order, session, payLink } = await startPayment(10, { group: "vip", email: "buyer@example.com" });
    expect(order).toMatchObject({
      amount: 10,
      quota: 5_000_000n,
      money_cents: 6570,
      currency: "usd",
      payment_method: "stripe",
      status: "pending",
      gateway_ref: session.id,
      complete_time: 0,
      completed_by: 0,
    });
    expect(order.trade_no).toMatch(new RegExp(`^USR${user.id}NO[A-Za-z0-9]{6}\\d+$`));
    expect(payLink).toBe(`${stripe.url}/pay/${session.id}`);
    const request = stripe.requests.find((r) => r.path === "/v1/checkout/sessions" && r.idempotencyKey === order.trade_no)!;
    expect(request.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(request.params).toEqual({
      mode: "payment",
      client_reference_id: order.trade_no,
      metadata: { trade_no: order.trade_no, user_id: String(user.id) },
      line_items: [{ price_data: { currency: "usd", product: "prod_topup", unit_amount: "6570" }, quantity: "1" }],
      customer_email: "buyer@example.com",
      success_url: `https://qiao.example.com/topup?trade_no=${order.trade_no}`,
      cancel_url: "https://qiao.example.com/topup",
    });
    expect(session.amount_total).toBe(6570);
  });

  it("sends no customer_email for a user without one, and comes back to CustomCallbackAddress when set", async () => {
    await enableStripe();
    await setOption("CustomCallbackAddress", "https://pay.qiao.example.com//");
    const { order } = await startPayment(2);
    const request = stripe.requests.find((r) => r.idempotencyKey === order.trade_no)!;
    expect(request.params).not.toHaveProperty("customer_email");
    expect(request.params).toMatchObject({
      success_url: `https://pay.qiao.example.com/topup?trade_no=${order.trade_no}`,
      cancel_url: "https://pay.qiao.example.com/topup",
    });
  });

  it("closes the order when Stripe refuses the session", async () => {
    await enableStripe();
    stripe.refuseSessions = "Amount must be at least $0.50 usd";
    const user = await newUser();
    expectRefused(await pay(user, { amount: 1, payment_method: "stripe" }), "Stripe 请求失败：Amount must be at least $0.50 usd", 502);
    const orders = await ordersOf(user.id);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ status: "expired", gateway_ref: "" });
  });

  it("limits how many payments one user starts (CRITICAL_RATE_LIMIT per window)", async () => {
    await enableStripe();
    const user = await newUser();
    for (let i = 0; i < 20; i++) expect((await pay(user, { amount: 1, payment_method: "stripe" })).json.success).toBe(true);
    expectRefused(await pay(user, { amount: 1, payment_method: "stripe" }), TOPUP_MSG.tooManyOrders, 429);
    expect(await ordersOf(user.id)).toHaveLength(20);
    // Another user is not held back.
    expect((await pay(await newUser(), { amount: 1, payment_method: "stripe" })).json.success).toBe(true);
  });
});

describe("POST /api/stripe/webhook", () => {
  /** The order, the user's balance and top-up log rows, to show that nothing moved. */
  const snapshot = async (userId: number, tradeNo: string) => ({
    order: await db.topUp.findUniqueOrThrow({ where: { trade_no: tradeNo } }),
    quota: await quotaOf(userId),
    logs: (await topUpLogs(userId)).length,
  });

  it("credits a paid checkout.session.completed once, with one log row naming the order; a replay credits nothing", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(3);
    const event = stripe.signedEvent("checkout.session.completed", session.id as string);
    const first = await stripe.deliver(event);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ success: true, message: "", data: { outcome: "credited" } });
    expect(await quotaOf(user.id)).toBe(1_500_000n);
    const paid = await db.topUp.findUniqueOrThrow({ where: { trade_no: order.trade_no } });
    expect(paid).toMatchObject({ status: "success", completed_by: 0, gateway_ref: session.id });
    expect(paid.complete_time).toBeGreaterThan(0);
    const logs = await topUpLogs(user.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.quota).toBe(1_500_000n);
    expect(logs[0]!.content).toContain(order.trade_no);
    expect(logs[0]!.content).toContain("24.00 USD");

    const replay = await stripe.deliver(event);
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.body).data).toEqual({ outcome: "already" });
    const again = await stripe.send("checkout.session.async_payment_succeeded", session.id as string);
    expect(JSON.parse(again.body).data).toEqual({ outcome: "already" });
    expect(await quotaOf(user.id)).toBe(1_500_000n);
    expect(await topUpLogs(user.id)).toHaveLength(1);
  });

  it("refuses with 400 a forged, stale, tampered or unsigned delivery, and nothing moves", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(1);
    const sessionId = session.id as string;
    const before = await snapshot(user.id, order.trade_no);
    const forged = await stripe.send("checkout.session.completed", sessionId, {}, { secret: "whsec_not_the_merchants" });
    const stale = await stripe.send("checkout.session.completed", sessionId, {}, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const real = stripe.signedEvent("checkout.session.completed", sessionId);
    const tampered = await stripe.deliver({
      payload: real.payload.replace('"amount_total": 800', '"amount_total": 80000'),
      header: real.header,
    });
    const unsigned = await stripe.deliver({ payload: real.payload, header: null });
    const garbage = await stripe.deliver({ payload: real.payload, header: "t=1,v1=00" });
    for (const delivery of [forged, stale, tampered, unsigned, garbage]) {
      expect(delivery.status, delivery.body).toBe(400);
      expect(JSON.parse(delivery.body)).toMatchObject({ success: false, message: "Stripe-Signature 校验失败" });
    }
    expect(await snapshot(user.id, order.trade_no)).toEqual(before);
  });

  it("answers 400 while Stripe is not configured", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(1);
    const event = stripe.signedEvent("checkout.session.completed", session.id as string);
    await setOption("StripeWebhookSecret", "");
    const res = await stripe.deliver(event);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).message).toBe("Stripe 未配置");
    expect((await snapshot(user.id, order.trade_no)).order.status).toBe("pending");
  });

  it("credits nothing for a wrong amount_total or currency, an unknown order, another session's or another gateway's order", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(1);
    const sessionId = session.id as string;
    const other = await startPayment(1);
    const epayOrder = await createOrder({
      user_id: user.id,
      amount: 1,
      quota: 500_000n,
      money_cents: 800,
      currency: "CNY",
      payment_method: "zfb",
    });
    const before = await snapshot(user.id, order.trade_no);
    const sends = [
      stripe.send("checkout.session.completed", sessionId, { amount_total: 799 }),
      stripe.send("checkout.session.completed", sessionId, { amount_total: 80000 }),
      stripe.send("checkout.session.completed", sessionId, { currency: "eur" }),
      stripe.send("checkout.session.completed", sessionId, { client_reference_id: "USR1NOnosuch1700000000", metadata: {} }),
      stripe.send("checkout.session.completed", sessionId, { amount_total: null }),
      // A session of another order naming this order's number (and the metadata that disagrees).
      stripe.send("checkout.session.completed", other.session.id as string, {
        client_reference_id: order.trade_no,
        metadata: { trade_no: order.trade_no },
      }),
      stripe.send("checkout.session.completed", sessionId, { metadata: { trade_no: other.order.trade_no } }),
      stripe.send("checkout.session.completed", sessionId, {
        client_reference_id: epayOrder.trade_no,
        metadata: { trade_no: epayOrder.trade_no },
        amount_total: 800,
        currency: "cny",
      }),
    ];
    for (const delivery of await Promise.all(sends)) {
      expect(delivery.status, delivery.body).toBe(200);
      expect(JSON.parse(delivery.body).data).toEqual({ outcome: "refused" });
    }
    expect(await snapshot(user.id, order.trade_no)).toEqual(before);
    expect((await db.topUp.findUniqueOrThrow({ where: { trade_no: epayOrder.trade_no } })).status).toBe("pending");
    expect((await db.topUp.findUniqueOrThrow({ where: { trade_no: other.order.trade_no } })).status).toBe("pending");
    expect(await quotaOf(other.user.id)).toBe(0n);
  });

  it("waits on a completed but unpaid session and credits when the async payment succeeds", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(2);
    const unpaid = await stripe.send("checkout.session.completed", session.id as string, { payment_status: "unpaid" });
    expect(JSON.parse(unpaid.body).data).toEqual({ outcome: "unpaid" });
    expect((await snapshot(user.id, order.trade_no)).order.status).toBe("pending");
    expect(await quotaOf(user.id)).toBe(0n);
    const succeeded = await stripe.send("checkout.session.async_payment_succeeded", session.id as string);
    expect(JSON.parse(succeeded.body).data).toEqual({ outcome: "credited" });
    expect(await quotaOf(user.id)).toBe(1_000_000n);
  });

  it("marks an expired session's order expired; money that arrives later is still credited", async () => {
    await enableStripe();
    const { user, order, session } = await startPayment(1);
    const expired = await stripe.send("checkout.session.expired", session.id as string);
    expect(JSON.parse(expired.body).data).toEqual({ outcome: "expired" });
    expect((await snapshot(user.id, order.trade_no)).order.status).toBe("expired");
    const paid = await stripe.send("checkout.session.completed", session.id as string);
    expect(JSON.parse(paid.body).data).toEqual({ outcome: "credited" });
    expect((await snapshot(user.id, order.trade_no)).order.status).toBe("success");
    expect(await quotaOf(user.id)).toBe(500_000n);
    // A late expiry does not undo a payment.
    await stripe.send("checkout.session.expired", session.id as string);
    expect((await snapshot(user.id, order.trade_no)).order.status).toBe("success");
  });

  it("answers 200 to events it does not act on", async () => {
    await enableStripe();
    const payload = JSON.stringify({
      id: "evt_1",
      object: "event",
      type: "payment_intent.succeeded",
      data: { object: { id: "pi_1", object: "payment_intent" } },
    });
    const res = await stripe.deliver({ payload, header: stripeSignature(payload, stripe.webhookSecret) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data).toEqual({ outcome: "ignored" });
  });

  it("carries a user through the checkout page: Pay sends the signed event, then back to /topup", async () => {
    await enableStripe();
    const { user, order, payLink } = await startPayment(1);
    const page = await fetch(payLink);
    const html = await page.text();
    expect(html).toContain(order.trade_no);
    expect(html).toContain("8.00 USD");
    const paid = await fetch(payLink, { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`https://qiao.example.com/topup?trade_no=${order.trade_no}`);
    expect(stripe.deliveries.at(-1)).toMatchObject({ type: "checkout.session.completed", status: 200 });
    expect(await quotaOf(user.id)).toBe(500_000n);
  });
});
