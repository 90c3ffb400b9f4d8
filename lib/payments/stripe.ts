// Stripe through its official package (`stripe`): the client for the configured secret key, the
// configured Price (read once per few minutes: it gives the currency and the product every Checkout
// Session is charged in), and how Stripe's refusals read in the console. The package's API base is
// STRIPE_API_BASE_URL (Stripe's own by default; a mock on loopback in tests).
import Stripe from "stripe";
import { ApiError, badRequest, isApiError } from "@/lib/errors";
import { env } from "@/lib/env";
import type { OptionValues } from "@/lib/options";
import { logPaymentRefusal } from "@/lib/payments/orders";
import { TOPUP_MSG } from "@/lib/payments/schemas";

/** The package's host, port and protocol options, read from STRIPE_API_BASE_URL. */
function apiAddress(): { host: string; port: number; protocol: "http" | "https" } {
  const url = new URL(env.STRIPE_API_BASE_URL);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: Number(url.port) || (protocol === "http" ? 80 : 443), protocol };
}

let current: { secret: string; client: Stripe } | null = null;

/** The package's client for `secret` (kept while the key stays the same). */
export function stripeClient(secret: string): Stripe {
  if (current?.secret !== secret) {
    const client = new Stripe(secret, {
      ...apiAddress(),
      // A POST retried after a lost answer carries the same Idempotency-Key, so Stripe acts once.
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: "Qiao" },
    });
    current = { secret, client };
  }
  return current.client;
}

/**
 * Currencies whose smallest unit is not a hundredth (Stripe's "zero-decimal" and "three-decimal"
 * lists; ISK and UGX are charged in hundredths that must end in 00). Quotes are exact cents, so
 * these are refused rather than rounded.
 */
const NOT_TWO_DECIMAL = new Set([
  "bif",
  "clp",
  "djf",
  "gnf",
  "jpy",
  "kmf",
  "krw",
  "mga",
  "pyg",
  "rwf",
  "ugx",
  "vnd",
  "vuv",
  "xaf",
  "xof",
  "xpf",
  "isk",
  "bhd",
  "jod",
  "kwd",
  "omr",
  "tnd",
]);

/** Whether Stripe counts `currency` in hundredths (USD, EUR, CNY… yes; JPY, KWD… no). */
export function isTwoDecimalCurrency(currency: string): boolean {
  return /^[a-z]{3}$/i.test(currency) && !NOT_TWO_DECIMAL.has(currency.toLowerCase());
}

/** What a Checkout Session needs of the configured Price. */
export type StripePrice = {
  /** Lower case, as Stripe writes it ("usd"). */
  currency: string;
  /** The Product every session's line item is charged under. */
  product: string;
};

type StripeOptions = Pick<OptionValues, "StripeApiSecret" | "StripePriceId">;

const PRICE_TTL_MS = 5 * 60_000;
const prices = new Map<string, { at: number; price: Promise<StripePrice> }>();

/**
 * The configured Price's currency and product, read through the package and kept for a few
 * minutes per key and price id (a quote and the order after it cost one call, not two). Throws
 * the envelope error when Stripe refuses or the currency is not counted in hundredths.
 */
export async function configuredPrice(o: StripeOptions): Promise<StripePrice> {
  let price: StripePrice;
  try {
    price = await readPrice(o);
  } catch (error) {
    throw stripeFailure(error, "price");
  }
  if (!isTwoDecimalCurrency(price.currency)) throw badRequest(TOPUP_MSG.stripeCurrency(price.currency.toUpperCase()));
  return price;
}

function readPrice(o: StripeOptions): Promise<StripePrice> {
  const key = `${o.StripeApiSecret}\n${o.StripePriceId}`;
  const cached = prices.get(key);
  if (cached && Date.now() - cached.at < PRICE_TTL_MS) return cached.price;
  const price = stripeClient(o.StripeApiSecret)
    .prices.retrieve(o.StripePriceId)
    .then((p) => ({ currency: p.currency.toLowerCase(), product: typeof p.product === "string" ? p.product : p.product.id }));
  prices.set(key, { at: Date.now(), price });
  // A failed read is not kept: the next quote asks again.
  price.catch(() => prices.delete(key));
  return price;
}

/**
 * Stripe refused a call or could not be reached: logged for the operator (Stripe's own message
 * never carries the key in full), answered as 502 with Stripe's message.
 */
export function stripeFailure(error: unknown, call: string): ApiError {
  if (isApiError(error)) return error;
  const e = error as Stripe.errors.StripeError;
  const message = e instanceof Stripe.errors.StripeError ? e.message : String(error);
  logPaymentRefusal("stripe", `${call} failed`, { type: e?.type, status: e?.statusCode, message });
  return new ApiError(TOPUP_MSG.stripeFailed(message), 502);
}
