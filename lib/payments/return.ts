// Coming back to the wallet from a gateway (contract of issue 24): EPay appends `out_trade_no`
// (and the rest of its notice) to the return URL, Stripe's success URL carries `trade_no`. The
// wallet shows the state of THAT order as our database has it, for the signed-in user only: the
// query says which order, never how it went (anyone can type `trade_status=TRADE_SUCCESS`).
import { num } from "@/lib/db/num";
import { centsToMoney } from "@/lib/payments/epay";
import { findOrder, type OrderStatus } from "@/lib/payments/orders";

/** What the wallet's banner shows about the order the user came back from. */
export type PaymentReturn = {
  trade_no: string;
  status: OrderStatus;
  /** The quota the order credits (credited once status is success). */
  quota: number;
  /** What was paid, e.g. "73.00", in `currency` ("CNY" for EPay). */
  money: string;
  currency: string;
  payment_method: string;
};

type SearchParams = Record<string, string | string[] | undefined>;

/** The order number in the return URL's query: EPay's out_trade_no, else Stripe's trade_no. */
export function returnedTradeNo(params: SearchParams): string | null {
  for (const name of ["out_trade_no", "trade_no"]) {
    const value = params[name];
    // Given twice (an array) it names no one order.
    if (typeof value === "string" && value !== "" && value.length <= 128) return value;
  }
  return null;
}

/** The order `tradeNo` when it belongs to `userId`; another user's order (or none) is null. */
export async function findPaymentReturn(userId: number, tradeNo: string): Promise<PaymentReturn | null> {
  const order = await findOrder(tradeNo);
  if (!order || order.user_id !== userId) return null;
  return {
    trade_no: order.trade_no,
    status: order.status as OrderStatus,
    quota: num(order.quota),
    money: centsToMoney(order.money_cents),
    currency: order.currency.toUpperCase(),
    payment_method: order.payment_method,
  };
}
