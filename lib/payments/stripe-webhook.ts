// Stripe's notifications (`POST /api/stripe/webhook`). The raw body's `Stripe-Signature` is checked
// with the package's constructEvent and StripeWebhookSecret (HMAC-SHA256 over "{t}.{body}", at
// most five minutes old) before anything is read; then:
//   checkout.session.completed, paid          → creditOrder (amount, currency and gateway checked)
//   checkout.session.async_payment_succeeded  → creditOrder (a bank debit that cleared later)
//   checkout.session.completed, not yet paid  → nothing (the async event follows)
//   checkout.session.expired                  → the pending order is marked expired
//   anything else                             → ignored
// A forged or stale notification is refused with 400. One that is genuine but cannot credit
// (unknown order, wrong amount or currency, deleted user) is logged and answered 200: Stripe
// would retry it for days, and a retry cannot change the answer. A database failure throws (500),
// so Stripe retries that one.
import Stripe from "stripe";
import { z } from "zod";
import { badRequest } from "@/lib/errors";
import { getOptions } from "@/lib/options";
import { isStripeTopUpEnabled } from "@/lib/payments/amount";
import { creditOrder, expireOrder, findOrder, logPaymentRefusal, PAYMENT_METHOD } from "@/lib/payments/orders";
import { STRIPE_WEBHOOK_EVENTS } from "@/lib/payments/stripe-events";

export const STRIPE_WEBHOOK_MSG = {
  notConfigured: "Stripe 未配置",
  badSignature: "Stripe-Signature 校验失败",
} as const;

/** The fields of a Checkout Session the webhook reads (Stripe's object has many more). */
const sessionSchema = z.object({
  object: z.literal("checkout.session"),
  id: z.string(),
  client_reference_id: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  amount_total: z.number().int().nullish(),
  currency: z.string().nullish(),
  payment_status: z.string(),
});
type Session = z.infer<typeof sessionSchema>;

export type WebhookOutcome = "credited" | "already" | "refused" | "expired" | "unpaid" | "ignored";

/** Handles one delivery: `body` exactly as received, `signature` its Stripe-Signature header. */
export async function handleStripeWebhook(body: Uint8Array, signature: string | null): Promise<WebhookOutcome> {
  const o = await getOptions();
  if (!isStripeTopUpEnabled(o)) {
    logPaymentRefusal("stripe", "webhook while Stripe is not configured");
    throw badRequest(STRIPE_WEBHOOK_MSG.notConfigured);
  }
  let event: Stripe.Event;
  try {
    if (!signature) throw new Error("no Stripe-Signature header");
    event = Stripe.webhooks.constructEvent(Buffer.from(body), signature, o.StripeWebhookSecret);
  } catch (error) {
    logPaymentRefusal("stripe", "bad signature", { error: (error as Error).message });
    throw badRequest(STRIPE_WEBHOOK_MSG.badSignature);
  }
  const type = event.type as string;
  if (!(STRIPE_WEBHOOK_EVENTS as readonly string[]).includes(type)) return "ignored";
  const parsed = sessionSchema.safeParse(event.data.object);
  if (!parsed.success) {
    logPaymentRefusal("stripe", "not a checkout session", { event: event.id, type });
    return "refused";
  }
  const session = parsed.data;
  if (type === "checkout.session.completed" && session.payment_status !== "paid") return "unpaid";
  return type === "checkout.session.expired" ? expire(event.id, session) : credit(event.id, session);
}

/** Our order number: client_reference_id, which the metadata repeats. */
function tradeNoOf(session: Session): string | null {
  const ref = session.client_reference_id ?? "";
  const meta = session.metadata?.trade_no ?? "";
  if (ref && meta && ref !== meta) return null;
  return ref || meta || null;
}

/**
 * The order the session belongs to, or why not: it must exist, be a Stripe order, and carry this
 * session's id once one was recorded.
 */
async function orderOf(eventId: string, session: Session): Promise<string | null> {
  const tradeNo = tradeNoOf(session);
  const order = tradeNo ? await findOrder(tradeNo) : null;
  const reason = !order
    ? "unknown order"
    : order.payment_method !== PAYMENT_METHOD.stripe
      ? `order paid by ${order.payment_method}`
      : order.gateway_ref && order.gateway_ref !== session.id
        ? `order belongs to session ${order.gateway_ref}`
        : null;
  if (reason) {
    logPaymentRefusal("stripe", reason, { event: eventId, session: session.id, trade_no: tradeNo });
    return null;
  }
  return tradeNo;
}

async function credit(eventId: string, session: Session): Promise<WebhookOutcome> {
  const tradeNo = await orderOf(eventId, session);
  if (!tradeNo) return "refused";
  if (session.amount_total == null || !session.currency) {
    logPaymentRefusal("stripe", "paid session without amount or currency", { event: eventId, session: session.id, trade_no: tradeNo });
    return "refused";
  }
  const result = await creditOrder(tradeNo, {
    paid_cents: BigInt(session.amount_total),
    currency: session.currency,
    methods: [PAYMENT_METHOD.stripe],
    gateway_ref: session.id,
  });
  switch (result.outcome) {
    case "credited":
      return "credited";
    case "already":
      // A replay, or Stripe delivering the event twice: nothing more to credit.
      logPaymentRefusal("stripe", "already paid", { event: eventId, session: session.id, trade_no: tradeNo });
      return "already";
    default: {
      const reason = result.outcome === "mismatch" ? result.reason : result.outcome;
      logPaymentRefusal("stripe", reason, { event: eventId, session: session.id, trade_no: tradeNo });
      return "refused";
    }
  }
}

async function expire(eventId: string, session: Session): Promise<WebhookOutcome> {
  const tradeNo = await orderOf(eventId, session);
  if (!tradeNo) return "refused";
  await expireOrder(tradeNo);
  return "expired";
}
