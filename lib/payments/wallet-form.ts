// The wallet page's rules (browser-side) (spec §5 Redeem and top-up, §8), pure so they are
// unit-tested: the code to redeem, the top-up amount and the texts the page shows.
import { TOPUP_MSG } from "@/lib/payments/schemas";
import { REDEMPTION_MSG } from "@/lib/redemptions/schemas";

export const WALLET_MSG = {
  /** Spec §5: an empty code. */
  codeRequired: REDEMPTION_MSG.keyRequired,
  /** Spec §8: the redeem request got no answer. */
  requestFailed: "请求失败",
  /** Spec §8: top-up succeeded, with the credited quota. */
  redeemed: (credited: string) => `充值成功！充值额度：${credited}`,
  /** Spec §5: the get-code button without a configured TopUpLink. */
  noTopUpLink: "超级管理员未设置充值链接！",
  /** Spec §5: online top-up is off. */
  onlineDisabled: TOPUP_MSG.disabled,
  /** Spec §8: the amount quote failed. */
  amountError: (message: string) => `错误：${message}`,
  /** Back from the gateway (lib/payments/return.ts): the order as our database has it. */
  paid: "充值成功",
  paidDetail: (credited: string, tradeNo: string) => `已到账 ${credited}，订单号 ${tradeNo}`,
  payPending: "支付结果确认中，到账后余额会自动更新",
  payPendingDetail: (money: string, tradeNo: string) => `订单号 ${tradeNo}，实付 ${money}`,
  payExpired: "订单已过期",
  payExpiredDetail: (tradeNo: string) => `订单 ${tradeNo} 未完成支付，已关闭。如已付款，请联系管理员处理。`,
  /** Starting the payment failed (POST /api/user/pay or /api/user/stripe/pay refused it). */
  payError: (message: string) => `支付失败：${message}`,
} as const;

/**
 * The wallet's payment methods: spec §2's two EPay methods (its type codes), shown while EPay is
 * configured, and Stripe Checkout (beyond the spec, as new-api has it), shown while Stripe is.
 */
export const PAYMENT_METHODS = [
  { value: "zfb", label: "支付宝", gateway: "epay", color: "blue" },
  { value: "wx", label: "微信", gateway: "epay", color: "green" },
  { value: "stripe", label: "Stripe", gateway: "stripe", color: "violet" },
] as const;

export type PaymentMethod = (typeof PAYMENT_METHODS)[number]["value"];

/** The methods offered while EPay and Stripe are each on or off. */
export function offeredMethods(on: { epay: boolean; stripe: boolean }): (typeof PAYMENT_METHODS)[number][] {
  return PAYMENT_METHODS.filter((m) => (m.gateway === "epay" ? on.epay : on.stripe));
}

/** A price as the wallet shows it: "73.00 元" in CNY (EPay), "8.00 USD" in another currency (Stripe). */
export function moneyText(money: string, currency: string): string {
  const code = currency.toUpperCase();
  return code === "CNY" ? `${money} 元` : `${money} ${code}`;
}

/** The code to send (trimmed), or the spec's text for an empty one. */
export function readRedeemCode(raw: string): { ok: true; key: string } | { ok: false; message: string } {
  const key = raw.trim();
  return key ? { ok: true, key } : { ok: false, message: WALLET_MSG.codeRequired };
}

/** The amount as entered, clamped to a whole number of at least 1 (spec §5); "" or garbage reads as 1. */
export function clampTopUpAmount(value: number | string): number {
  const n = typeof value === "number" ? value : Number(value.trim() || Number.NaN);
  if (!Number.isFinite(n)) return 1;
  return Math.min(Math.max(1, Math.trunc(n)), Number.MAX_SAFE_INTEGER);
}

/** Spec §5's text when the amount is below the server's minimum (`min_topup`, in entry units), else null. */
export function checkTopUpAmount(amount: number, min: number): string | null {
  return amount < min ? TOPUP_MSG.tooSmall(min) : null;
}
