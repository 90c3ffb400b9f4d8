// What an online top-up costs (new-api controller/topup.go, inventory §4.3). The amount a user
// enters is in US$ while the console shows currency (DisplayInCurrencyEnabled), else in quota
// units, which are divided by QuotaPerUnit first. The price is
//   amount × Price × TopupGroupRatio[user's group]
// in the top-up currency (Price is currency per US$1; Stripe uses StripeUnitPrice in its price's
// currency instead), computed exactly from the decimals the
// admin typed and rounded once, half up, to cents: the quote and the later payment order use this
// one rule, so what the dialog shows is what is charged.
import { badRequest } from "@/lib/errors";
import { decimalToRat } from "@/lib/billing/price";
import { getOptions, type OptionValues } from "@/lib/options";
import { TOPUP_MSG } from "@/lib/payments/schemas";

type PaymentOptions = Pick<OptionValues, "PayAddress" | "EpayId" | "EpayKey">;
type StripeOptions = Pick<OptionValues, "StripeApiSecret" | "StripeWebhookSecret" | "StripePriceId">;
type AmountOptions = Pick<OptionValues, "DisplayInCurrencyEnabled" | "QuotaPerUnit" | "MinTopUp" | "Price" | "TopupGroupRatio">;

/** Online top-up is on once the EPay gateway is configured: PayAddress, EpayId and EpayKey all set. */
export function isOnlineTopUpEnabled(o: PaymentOptions): boolean {
  return o.PayAddress !== "" && o.EpayId !== "" && o.EpayKey !== "";
}

/**
 * Stripe Checkout is on once its API key (a secret `sk_` or restricted `rk_` key), webhook
 * signing secret and price id are all set.
 */
export function isStripeTopUpEnabled(o: StripeOptions): boolean {
  return /^(sk|rk)_/.test(o.StripeApiSecret) && o.StripeWebhookSecret !== "" && o.StripePriceId !== "";
}

/**
 * The smallest amount a user may enter: MinTopUp (US$) while the console shows currency, else
 * MinTopUp × QuotaPerUnit quota units. `GET /api/status` reports it as `min_topup`.
 */
export function minTopUpAmount(o: Pick<AmountOptions, "DisplayInCurrencyEnabled" | "QuotaPerUnit" | "MinTopUp">): number {
  return o.DisplayInCurrencyEnabled ? o.MinTopUp : Math.ceil(o.MinTopUp * o.QuotaPerUnit);
}

/** TopupGroupRatio of a group; a group without an entry, or with 0, pays the plain price (new-api). */
export function topUpGroupRatio(o: Pick<AmountOptions, "TopupGroupRatio">, group: string): number {
  const ratios = o.TopupGroupRatio as Record<string, number>;
  const ratio = Object.hasOwn(ratios, group) ? ratios[group] : undefined;
  return ratio !== undefined && Number.isFinite(ratio) && ratio > 0 ? ratio : 1;
}

export type TopUpQuote =
  | { ok: true /** Price in cents of the top-up currency. */; cents: bigint /** The price with two decimals, e.g. "7.30". */; text: string }
  | { ok: false; message: string };

/**
 * The price of `amount` (an integer in entry units) for a user of `group`, or why it cannot be
 * bought. `unitPrice` is the gateway's currency per US$1: `Price` for EPay (the default),
 * `StripeUnitPrice` for Stripe. Pure; does not look at whether a gateway is enabled.
 */
export function priceTopUp(amount: number, group: string, o: AmountOptions, unitPrice: number = o.Price): TopUpQuote {
  if (!Number.isSafeInteger(amount)) return { ok: false, message: TOPUP_MSG.amountInvalid };
  const min = minTopUpAmount(o);
  if (amount < min) return { ok: false, message: TOPUP_MSG.tooSmall(min) };
  const price = decimalToRat(unitPrice);
  const ratio = decimalToRat(topUpGroupRatio(o, group));
  let n = BigInt(amount) * price.n * ratio.n;
  let d = price.d * ratio.d;
  if (!o.DisplayInCurrencyEnabled) {
    const perUnit = decimalToRat(o.QuotaPerUnit);
    n *= perUnit.d;
    d *= perUnit.n;
  }
  // new-api refuses a price ≤ 0.01 (before rounding).
  if (d === 0n || n * 100n <= d) return { ok: false, message: TOPUP_MSG.tooCheap };
  const cents = (200n * n + d) / (2n * d);
  return { ok: true, cents, text: `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}` };
}

/**
 * `POST /api/user/amount`: what the user pays for `amount`, as new-api's two-decimal string
 * ("7.30"). Throws the envelope error when online top-up is off or the amount is refused.
 */
export async function quoteTopUp(user: { group: string }, amount: number): Promise<string> {
  const options = await getOptions();
  if (!isOnlineTopUpEnabled(options)) throw badRequest(TOPUP_MSG.disabled);
  const quote = priceTopUp(amount, user.group, options);
  if (!quote.ok) throw badRequest(quote.message);
  return quote.text;
}
