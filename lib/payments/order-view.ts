// What a top-up order looks like through the console: the rows of GET /api/user/topup/self (the
// caller's own) and GET /api/user/topup (admin, with the user), the labels the wallet and the
// /orders page show, and who may mark an order paid. Client-safe: no server imports.
import { canManageUser, isRoot } from "@/lib/auth/roles";
import type { OrderStatus, PaymentMethod } from "@/lib/payments/orders";

/** An order as its user sees it. */
export type OrderView = {
  id: number;
  trade_no: string;
  /** What the user asked for, in the units the wallet took it in (US$, or quota units). */
  amount: number;
  /** The quota the order credits (credited once it is success). */
  quota: number;
  /** What is (or was) paid, with two decimals: "73.00". */
  money: string;
  /** ISO code, upper case: "CNY" (EPay), the Stripe price's currency. */
  currency: string;
  payment_method: string;
  status: string;
  create_time: number;
  /** 0 until paid. */
  complete_time: number;
};

/** An order as an admin sees it: whose it is, the gateway's reference, who marked it paid. */
export type AdminOrderView = OrderView & {
  user_id: number;
  /** "" when the account no longer exists. */
  username: string;
  /** The account's role now (-1 when it no longer exists), for the mark-paid rule. */
  user_role: number;
  /** The account is deactivated (or gone): nothing can be credited to it. */
  user_gone: boolean;
  /** EPay's trade_no, the Stripe Checkout Session id; "" until known. */
  gateway_ref: string;
  /** The admin who marked it paid; 0 when the gateway's notification did (or not paid yet). */
  completed_by: number;
  completed_by_name: string;
};

/**
 * The wallet's 充值记录 pages under keys of its own (orders_p, orders_size): /topup's URL also
 * carries what the gateways send the user back with (out_trade_no, trade_no, type, money…).
 */
export const WALLET_ORDERS_PREFIX = "orders_";

export const ORDER_MSG = {
  notFound: "订单不存在",
  alreadyPaid: "订单已完成，无需补单",
  userGone: "用户不存在",
  outranked: "无权为同级或更高权限等级的用户补单",
  completed: "补单成功",
  statusInvalid: "订单状态只能是 pending、success 或 expired",
  methodInvalid: "支付方式只能是 zfb、wx 或 stripe",
} as const;

export const ORDER_STATUS_LOOK: Record<OrderStatus, { label: string; color: string }> = {
  pending: { label: "待支付", color: "yellow" },
  success: { label: "已完成", color: "green" },
  expired: { label: "已过期", color: "gray" },
};

export const PAYMENT_METHOD_LABEL: Record<PaymentMethod, string> = { zfb: "支付宝", wx: "微信", stripe: "Stripe" };

/** The filters' choices, "" first for "all". */
export const ORDER_STATUS_OPTIONS = [
  { value: "", label: "全部状态" },
  ...Object.entries(ORDER_STATUS_LOOK).map(([value, look]) => ({ value, label: look.label })),
];
export const PAYMENT_METHOD_OPTIONS = [
  { value: "", label: "全部方式" },
  ...Object.entries(PAYMENT_METHOD_LABEL).map(([value, label]) => ({ value, label })),
];

/** Whether an order may still be marked paid: a pending or an expired one (money may arrive late). */
export const isPayable = (order: { status: string }) => order.status === "pending" || order.status === "expired";

/**
 * Why `actor` may not mark an order of `owner` paid; null when it may. Crediting quota is editing
 * the user's balance, so the rule of user editing applies (lib/users/manage-rules.ts editRefusal):
 * only over users the actor outranks, and root also for itself. An admin cannot credit itself or
 * another admin; root can credit anyone.
 */
export function markPaidRefusal(actor: { id: number; role: number }, owner: { id: number; role: number }): string | null {
  if (canManageUser(actor, owner) || (isRoot(actor) && actor.id === owner.id)) return null;
  return ORDER_MSG.outranked;
}
