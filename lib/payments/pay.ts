// Starting an EPay payment (`POST /api/user/pay`, spec §7): the price is computed here from the
// options and the user's group (never taken from the client), a pending order is written, and the
// wallet gets the signed form it posts to the gateway. The gateway later calls
// /api/user/epay/notify, which credits the order once (lib/payments/orders.ts creditOrder).
import { rateLimitStore } from "@/lib/auth/rate-limit";
import { env } from "@/lib/env";
import { badRequest, tooManyRequests } from "@/lib/errors";
import { getOptions, type OptionValues } from "@/lib/options";
import { isOnlineTopUpEnabled, priceTopUp } from "@/lib/payments/amount";
import { type EpayForm, type EpayMethod, epayForm } from "@/lib/payments/epay";
import { createOrder, newTradeNo, OrderTooLarge, type PaymentMethod, quotaForAmount } from "@/lib/payments/orders";
import { TOPUP_MSG } from "@/lib/payments/schemas";

/**
 * Where the gateways call us back and send the user back to: CustomCallbackAddress when set, else
 * ServerAddress, without a trailing slash (a trailing "/" broke new-api's notify URL, #1687).
 */
export function callbackBase(o: Pick<OptionValues, "CustomCallbackAddress" | "ServerAddress">): string {
  return (o.CustomCallbackAddress.trim() || o.ServerAddress.trim()).replace(/\/+$/, "");
}

/** The EPay notification URL (new-api's path, so gateway configurations carry over). */
export const EPAY_NOTIFY_PATH = "/api/user/epay/notify";
/** Where the gateway sends the user after paying; it appends out_trade_no and the rest. */
export const PAY_RETURN_PATH = "/topup";

export type EpayStart = EpayForm & { trade_no: string };

/**
 * Orders a user may create: CRITICAL_RATE_LIMIT per CRITICAL_RATE_LIMIT_DURATION (20 per 20
 * minutes by default, new-api's critical limit, which it puts on /api/user/pay), counted across
 * instances in the shared cache. Each order is a row and a trip to the gateway; a person pays a
 * few times an hour at most, a script filling the table is stopped. Called once the order is
 * known to be valid, so refused amounts cost nothing; EPay and Stripe share the count.
 */
export async function limitOrderCreation(userId: number): Promise<void> {
  const limit = env.CRITICAL_RATE_LIMIT;
  if (limit <= 0) return;
  if (!(await rateLimitStore().hit(`pay:user:${userId}`, limit, env.CRITICAL_RATE_LIMIT_DURATION))) {
    throw tooManyRequests(TOPUP_MSG.tooManyOrders);
  }
}

/**
 * Writes the pending order of a payment being started (EPay or Stripe), once its price is known to
 * be valid: counted against limitOrderCreation, its quota fixed now. Answers the order number.
 */
export async function openOrder(
  userId: number,
  amount: number,
  o: Pick<OptionValues, "DisplayInCurrencyEnabled" | "QuotaPerUnit">,
  pay: { cents: bigint; currency: string; method: PaymentMethod },
): Promise<string> {
  await limitOrderCreation(userId);
  const tradeNo = newTradeNo(userId);
  try {
    await createOrder({
      user_id: userId,
      amount,
      quota: quotaForAmount(amount, o),
      money_cents: pay.cents,
      currency: pay.currency,
      payment_method: pay.method,
      trade_no: tradeNo,
    });
  } catch (error) {
    if (error instanceof OrderTooLarge) throw badRequest(TOPUP_MSG.tooLarge);
    throw error;
  }
  return tradeNo;
}

/** Creates the pending order for `amount` paid with `method` and answers the signed gateway form. */
export async function startEpayPayment(user: { id: number; group: string }, amount: number, method: EpayMethod): Promise<EpayStart> {
  const o = await getOptions();
  if (!isOnlineTopUpEnabled(o)) throw badRequest(TOPUP_MSG.disabled);
  const quote = priceTopUp(amount, user.group, o);
  if (!quote.ok) throw badRequest(quote.message);
  const tradeNo = await openOrder(user.id, amount, o, { cents: quote.cents, currency: "CNY", method });
  const base = callbackBase(o);
  const form = epayForm({
    payAddress: o.PayAddress,
    pid: o.EpayId,
    key: o.EpayKey,
    method,
    tradeNo,
    money: quote.text,
    name: `TUC${amount}`,
    notifyUrl: `${base}${EPAY_NOTIFY_PATH}`,
    returnUrl: `${base}${PAY_RETURN_PATH}`,
  });
  return { ...form, trade_no: tradeNo };
}
