// Top-up orders (top_ups): created pending when a user starts a payment, credited exactly once when
// the gateway says it was paid (EPay notify, Stripe webhook) or an admin marks it paid. The one
// credit path, creditOrder, moves the order pending → success in ONE conditional update (WHERE
// trade_no = ? AND status IN (pending, expired)) whose row count says whether this call won it;
// only then, in the same transaction, is the user's quota raised and the top-up log row written.
// Twenty duplicate notifications racing on two instances: one credit, nineteen "already".
import { randomInt } from "node:crypto";
import { quotaText } from "@/lib/billing/quota-text";
import { decimalToRat } from "@/lib/billing/price";
import { publishInvalidation } from "@/lib/cache/bus";
import { getDb } from "@/lib/db";
import { INT_COLUMN_MAX, nowSeconds } from "@/lib/db/num";
import { retryConflicting, WRITE_TX } from "@/lib/db/retry";
import { writeLog } from "@/lib/logs/account-log";
import { LOG_TYPE } from "@/lib/logs/write";
import { getOptions, type OptionValues } from "@/lib/options";
import { componentLogger } from "@/lib/log";

const log = componentLogger("payments");

export const ORDER_STATUS = { pending: "pending", success: "success", expired: "expired" } as const;
export type OrderStatus = (typeof ORDER_STATUS)[keyof typeof ORDER_STATUS];

/** EPay's two methods (spec: zfb, wx) and Stripe Checkout. */
export const PAYMENT_METHOD = { zfb: "zfb", wx: "wx", stripe: "stripe" } as const;
export type PaymentMethod = (typeof PAYMENT_METHOD)[keyof typeof PAYMENT_METHOD];

export type Order = {
  id: number;
  user_id: number;
  amount: number;
  quota: bigint;
  money_cents: number;
  currency: string;
  trade_no: string;
  payment_method: string;
  gateway_ref: string;
  create_time: number;
  complete_time: number;
  status: string;
  completed_by: number;
};

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A unique order number in new-api's shape, `USR{userId}NO{6 random}{unix seconds}`. */
export function newTradeNo(userId: number): string {
  let random = "";
  for (let i = 0; i < 6; i++) random += ALNUM[randomInt(ALNUM.length)];
  return `USR${userId}NO${random}${nowSeconds()}`;
}

/**
 * The quota an order of `amount` (entry units) credits: amount × QuotaPerUnit while the console
 * shows currency (the amount is US$), else the amount itself (quota units). Exact, rounded down.
 */
export function quotaForAmount(amount: number, o: Pick<OptionValues, "DisplayInCurrencyEnabled" | "QuotaPerUnit">): bigint {
  if (!o.DisplayInCurrencyEnabled) return BigInt(amount);
  const perUnit = decimalToRat(o.QuotaPerUnit);
  return (BigInt(amount) * perUnit.n) / perUnit.d;
}

export type NewOrder = {
  user_id: number;
  amount: number;
  quota: bigint;
  money_cents: bigint | number;
  currency: string;
  payment_method: PaymentMethod;
  /** Our order number; a fresh newTradeNo when omitted. */
  trade_no?: string;
};

/** The price does not fit the orders table (more than 21 474 836.47 in one order). */
export class OrderTooLarge extends Error {}

/** Inserts a pending order and answers it. */
export async function createOrder(input: NewOrder): Promise<Order> {
  const cents = BigInt(input.money_cents);
  if (cents <= 0n || cents > BigInt(INT_COLUMN_MAX)) throw new OrderTooLarge();
  const db = await getDb();
  return db.topUp.create({
    data: {
      user_id: input.user_id,
      amount: input.amount,
      quota: input.quota,
      money_cents: Number(cents),
      currency: input.currency,
      trade_no: input.trade_no ?? newTradeNo(input.user_id),
      payment_method: input.payment_method,
      create_time: nowSeconds(),
      status: ORDER_STATUS.pending,
    },
  });
}

export async function findOrder(tradeNo: string): Promise<Order | null> {
  if (!tradeNo) return null;
  const db = await getDb();
  const order = await db.topUp.findUnique({ where: { trade_no: tradeNo } });
  // MariaDB compares the column case-insensitively and ignores trailing spaces: only the exact number is this order.
  return order && order.trade_no === tradeNo ? order : null;
}

/**
 * Records the gateway's reference of a payment just started (the Stripe Checkout Session id), so
 * an admin can look the order up at the gateway. Only on an order that has none yet.
 */
export async function setGatewayRef(tradeNo: string, ref: string): Promise<void> {
  const db = await getDb();
  await db.topUp.updateMany({ where: { trade_no: tradeNo, gateway_ref: "" }, data: { gateway_ref: ref } });
}

/** What the gateway (or the admin) says was paid; every field given must match the order. */
export type PaymentProof = {
  /** Hundredths of the currency actually paid. */
  paid_cents?: bigint;
  /** The currency paid in (compared case-insensitively). */
  currency?: string;
  /** Which gateway the proof came from: an EPay notify must not complete a Stripe order. */
  methods?: readonly PaymentMethod[];
  /** The gateway's own reference (EPay trade_no, Stripe session id), stored on the order. */
  gateway_ref?: string;
  /** The admin marking the order paid by hand (null for a gateway notification). */
  admin?: { id: number; username: string } | null;
};

export type CreditOutcome =
  | { outcome: "credited"; order: Order; quota: bigint }
  /** Paid before: nothing credited now (a replay or a concurrent duplicate). */
  | { outcome: "already"; order: Order }
  | { outcome: "unknown" }
  /** The proof disagrees with the order (amount, currency or gateway): nothing credited. */
  | { outcome: "mismatch"; order: Order; reason: string }
  /** The order's user no longer exists: nothing credited, the order stays as it was. */
  | { outcome: "user_gone"; order: Order };

class UserGone extends Error {}

const moneyText = (cents: number, currency: string) =>
  `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}${currency ? ` ${currency.toUpperCase()}` : ""}`;

function mismatch(order: Order, proof: PaymentProof): string | null {
  if (proof.methods && !proof.methods.includes(order.payment_method as PaymentMethod)) return `method ${order.payment_method}`;
  if (proof.paid_cents !== undefined && proof.paid_cents !== BigInt(order.money_cents)) {
    return `paid ${proof.paid_cents} cents, order ${order.money_cents}`;
  }
  if (proof.currency !== undefined && proof.currency.toLowerCase() !== order.currency.toLowerCase()) {
    return `currency ${proof.currency}, order ${order.currency}`;
  }
  return null;
}

/**
 * Credits order `tradeNo` once: checks `proof` against it, then in one transaction moves it to
 * success (only from pending or expired), raises the user's quota by the order's quota and writes
 * the top-up log row (type 1) with the trade number. Never throws for a refused or repeated
 * payment: the outcome says what happened, and the caller answers the gateway and logs it.
 */
export async function creditOrder(tradeNo: string, proof: PaymentProof = {}): Promise<CreditOutcome> {
  const found = await findOrder(tradeNo);
  if (!found) return { outcome: "unknown" };
  const reason = mismatch(found, proof);
  if (reason) return { outcome: "mismatch", order: found, reason };
  if (found.status === ORDER_STATUS.success) return { outcome: "already", order: found };
  const db = await getDb();
  const display = await getOptions();
  const now = nowSeconds();
  try {
    const won = await retryConflicting(() =>
      db.$transaction(async (tx) => {
        const { count } = await tx.topUp.updateMany({
          where: { trade_no: tradeNo, status: { in: [ORDER_STATUS.pending, ORDER_STATUS.expired] } },
          data: {
            status: ORDER_STATUS.success,
            complete_time: now,
            completed_by: proof.admin?.id ?? 0,
            ...(proof.gateway_ref ? { gateway_ref: proof.gateway_ref } : {}),
          },
        });
        if (count === 0) return null;
        const order = await tx.topUp.findUniqueOrThrow({ where: { trade_no: tradeNo } });
        const user = await tx.user.findFirst({ where: { id: order.user_id, deleted_at: null }, select: { username: true } });
        const credited = await tx.user.updateMany({
          where: { id: order.user_id, deleted_at: null },
          data: { quota: { increment: order.quota } },
        });
        if (!user || credited.count === 0) throw new UserGone();
        const by = proof.admin ? `，由管理员 ${proof.admin.username} 确认到账` : "";
        await writeLog(tx, {
          user_id: order.user_id,
          username: user.username,
          type: LOG_TYPE.topup,
          content: `使用在线充值成功，充值金额: ${quotaText(order.quota, display)}，支付金额：${moneyText(order.money_cents, order.currency)}，订单号：${order.trade_no}${by}`,
          quota: order.quota,
        });
        return order;
      }, WRITE_TX),
    );
    if (!won) {
      const order = await findOrder(tradeNo);
      return order ? { outcome: "already", order } : { outcome: "unknown" };
    }
    // The relay caches users (status, group, a balance hint that sizes its leases).
    publishInvalidation({ kind: "user", id: won.user_id });
    return { outcome: "credited", order: won, quota: won.quota };
  } catch (error) {
    if (error instanceof UserGone) return { outcome: "user_gone", order: found };
    throw error;
  }
}

/** Marks a pending order expired (Stripe's checkout.session.expired); a paid order stays paid. */
export async function expireOrder(tradeNo: string): Promise<boolean> {
  const db = await getDb();
  const { count } = await db.topUp.updateMany({
    where: { trade_no: tradeNo, status: ORDER_STATUS.pending },
    data: { status: ORDER_STATUS.expired },
  });
  return count > 0;
}

/**
 * One line on the server's log for a payment notification that credited nothing (forged, unknown,
 * mismatched, repeated), so an operator can see an attack or a misconfigured gateway.
 */
export function logPaymentRefusal(gateway: "epay" | "stripe" | "admin", reason: string, detail: Record<string, unknown> = {}): void {
  log.warn({ gateway, detail }, reason);
}
