// Stripe delivering one payment many times at once, on SQLite, PostgreSQL and MariaDB: two
// processes (two instances, each with its own connections) hand 10 copies each of a signed
// checkout.session.completed to the webhook's route handler at the same moment. The order is
// credited exactly once, with one log row; every other delivery is answered "already".
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { expect, it } from "vitest";
import { describeOnEveryDatabase, race } from "@/tests/helpers/instance-process";
import { stripeSignature } from "@/tests/mocks/stripe";

type Result = { status: number; body: string };

const WEBHOOK_SECRET = "whsec_race_0123456789abcdef";
const PER_INSTANCE = 10;

/** A paid Checkout Session's completed event for `tradeNo`, signed as Stripe signs it. */
function paidEvent(tradeNo: string, sessionId: string, cents: number) {
  const payload = JSON.stringify({
    id: `evt_race_${sessionId}`,
    object: "event",
    type: "checkout.session.completed",
    data: {
      object: {
        id: sessionId,
        object: "checkout.session",
        client_reference_id: tradeNo,
        metadata: { trade_no: tradeNo },
        amount_total: cents,
        currency: "usd",
        payment_status: "paid",
        status: "complete",
      },
    },
  });
  return { payload, header: stripeSignature(payload, WEBHOOK_SECRET) };
}

describeOnEveryDatabase(
  (kind) => `Stripe webhook deliveries on ${kind}`,
  ({ kind, t: db, start }) => {
    it(`${2 * PER_INSTANCE} concurrent duplicates from two instances credit once, with one log row`, async () => {
      const t = db();
      for (const [key, value] of [
        ["StripeApiSecret", "sk_test_race"],
        ["StripeWebhookSecret", WEBHOOK_SECRET],
        ["StripePriceId", "price_race"],
      ])
        await t.db.option.create({ data: { key, value } });
      const user = await t.db.user.create({ data: { username: `stripe_race_${kind}`, password: "x", quota: 7n } });
      const tradeNo = `USR${user.id}NOrace01${Math.floor(Date.now() / 1000)}`;
      const sessionId = "cs_test_race";
      await t.db.topUp.create({
        data: {
          user_id: user.id,
          amount: 3,
          quota: 1_500_000n,
          money_cents: 2400,
          currency: "usd",
          trade_no: tradeNo,
          payment_method: "stripe",
          gateway_ref: sessionId,
          create_time: Math.floor(Date.now() / 1000),
          status: "pending",
        },
      });
      const deliveries = Array.from({ length: PER_INSTANCE }, () => paidEvent(tradeNo, sessionId, 2400));
      const env = { STRIPE_DELIVERIES: JSON.stringify(deliveries) };
      const results = await race([start<Result>("stripe-webhook-process.ts", env), start<Result>("stripe-webhook-process.ts", env)]);

      expect(results).toHaveLength(2 * PER_INSTANCE);
      for (const r of results) expect(r.status, r.body).toBe(200);
      const outcomes = results.map((r) => JSON.parse(r.body).data.outcome as string);
      expect(outcomes.filter((o) => o === "credited")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "already")).toHaveLength(2 * PER_INSTANCE - 1);

      expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(1_500_007n);
      const order = await t.db.topUp.findUniqueOrThrow({ where: { trade_no: tradeNo } });
      expect(order).toMatchObject({ status: "success", completed_by: 0, gateway_ref: sessionId });
      const logs = await t.db.log.findMany({ where: { type: 1 } });
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ user_id: user.id, quota: 1_500_000n });
      expect(logs[0]!.content).toContain(tradeNo);
    });
  },
);
