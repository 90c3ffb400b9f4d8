// Paying through Stripe Checkout (beyond the spec; new-api has it). The price is
//   amount × StripeUnitPrice × TopupGroupRatio[group]
// in the configured Price's currency, computed on the server exactly as EPay's (priceTopUp), and
// the Checkout Session charges exactly that: one line item with our own unit_amount under the
// Price's product, so neither the group ratio nor rounding can differ between the dialog and
// Stripe. Stripe later calls POST /api/stripe/webhook, which credits the order once.
import { badRequest } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { getOptions, type OptionValues } from "@/lib/options";
import { isStripeTopUpEnabled, priceTopUp } from "@/lib/payments/amount";
import { expireOrder, PAYMENT_METHOD, setGatewayRef } from "@/lib/payments/orders";
import { callbackBase, openOrder, PAY_RETURN_PATH } from "@/lib/payments/pay";
import { TOPUP_MSG } from "@/lib/payments/schemas";
import { configuredPrice, type StripePrice, stripeClient, stripeFailure } from "@/lib/payments/stripe";

/** What `amount` costs through Stripe: cents, the two-decimal text and the currency (upper case). */
export type StripeQuote = { cents: bigint; text: string; currency: string; price: StripePrice };

async function quote(o: OptionValues, group: string, amount: number): Promise<StripeQuote> {
  if (!isStripeTopUpEnabled(o)) throw badRequest(TOPUP_MSG.stripeDisabled);
  // The amount's own refusals first: they need no call to Stripe.
  const priced = priceTopUp(amount, group, o, o.StripeUnitPrice);
  if (!priced.ok) throw badRequest(priced.message);
  const price = await configuredPrice(o);
  return { cents: priced.cents, text: priced.text, currency: price.currency.toUpperCase(), price };
}

/** `POST /api/user/stripe/amount`: what `amount` costs, e.g. `{ text: "8.00", currency: "USD" }`. */
export async function quoteStripeTopUp(user: { group: string }, amount: number): Promise<StripeQuote> {
  return quote(await getOptions(), user.group, amount);
}

/**
 * `POST /api/user/stripe/pay`: writes the pending order, opens a Checkout Session for it and
 * answers the session's page. The order number is the session's client_reference_id (and in its
 * metadata); the session id is kept as the order's gateway reference.
 */
export async function startStripeCheckout(user: { id: number; group: string }, amount: number): Promise<{ pay_link: string }> {
  const o = await getOptions();
  const q = await quote(o, user.group, amount);
  const tradeNo = await openOrder(user.id, amount, o, { cents: q.cents, currency: q.price.currency, method: PAYMENT_METHOD.stripe });
  const db = await getDb();
  const { email } = await db.user.findUniqueOrThrow({ where: { id: user.id }, select: { email: true } });
  const base = callbackBase(o);
  let session: { id: string; url: string | null };
  try {
    session = await stripeClient(o.StripeApiSecret).checkout.sessions.create(
      {
        mode: "payment",
        client_reference_id: tradeNo,
        metadata: { trade_no: tradeNo, user_id: String(user.id) },
        line_items: [{ price_data: { currency: q.price.currency, product: q.price.product, unit_amount: Number(q.cents) }, quantity: 1 }],
        ...(email ? { customer_email: email } : {}),
        success_url: `${base}${PAY_RETURN_PATH}?trade_no=${encodeURIComponent(tradeNo)}`,
        cancel_url: `${base}${PAY_RETURN_PATH}`,
      },
      { idempotencyKey: tradeNo },
    );
  } catch (error) {
    // Nothing can be paid for this order: it is closed rather than left pending.
    await expireOrder(tradeNo);
    throw stripeFailure(error, "checkout session");
  }
  if (!session.url) {
    await expireOrder(tradeNo);
    throw stripeFailure(new Error("the session has no url"), "checkout session");
  }
  await setGatewayRef(tradeNo, session.id);
  return { pay_link: session.url };
}
