// zod schemas and texts of the wallet calls, shared by the /api routes and the wallet page's forms.
import { z } from "zod";

export const TOPUP_MSG = {
  /** Spec §5 "Redeem and top-up". */
  disabled: "管理员未开启在线充值！",
  /** Spec §5; `min` in the units the amount is entered in (lib/payments/amount.ts minTopUpAmount). */
  tooSmall: (min: number) => `充值数量不能小于${min}`,
  /** new-api: a price of at most 0.01 cannot be paid. */
  tooCheap: "充值金额过低",
  amountInvalid: "充值数量必须是整数",
  methodInvalid: "不支持的支付方式",
  tooLarge: "充值数量过大",
  /** Too many orders created in the window (lib/payments/pay.ts limitOrderCreation). */
  tooManyOrders: "充值请求过于频繁，请稍后再试",
  /** Stripe's three options are not all set (lib/payments/amount.ts isStripeTopUpEnabled). */
  stripeDisabled: "管理员未开启 Stripe 充值！",
  /** The configured Stripe Price is in a currency not counted in hundredths (JPY, KWD…). */
  stripeCurrency: (currency: string) =>
    `Stripe 价格的币种 ${currency} 不是两位小数的货币，无法按分计价，请管理员改用 USD、EUR 等币种的价格`,
  /** Stripe refused a call or could not be reached. */
  stripeFailed: (message: string) => `Stripe 请求失败：${message}`,
} as const;

/** `POST /api/user/amount` (and later `/api/user/pay`): an integer amount in entry units; top_up_code is accepted and unused, as in new-api. */
export const topUpAmountSchema = z.object({
  amount: z.number({ error: TOPUP_MSG.amountInvalid }).int(TOPUP_MSG.amountInvalid),
  top_up_code: z.string().optional(),
});

/** `POST /api/user/pay`: the amount and one of EPay's two methods. */
export const epayPaySchema = topUpAmountSchema.extend({
  payment_method: z.enum(["zfb", "wx"], { error: TOPUP_MSG.methodInvalid }),
});

/** `POST /api/user/stripe/amount`: the amount only. */
export const stripeAmountSchema = z.object({
  amount: topUpAmountSchema.shape.amount,
});

/** `POST /api/user/stripe/pay`: the amount, paid through Stripe Checkout. */
export const stripePaySchema = stripeAmountSchema.extend({
  payment_method: z.literal("stripe", { error: TOPUP_MSG.methodInvalid }),
});
