import { envelopeWith } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { stripeAmountSchema } from "@/lib/payments/schemas";
import { quoteStripeTopUp } from "@/lib/payments/stripe-checkout";

/** `{ data: "8.00", currency: "USD" }`: the price of `amount` in the configured Stripe Price's currency. */
export const POST = route({
  auth: "user",
  body: stripeAmountSchema,
  handler: async ({ caller, body }) => {
    const quote = await quoteStripeTopUp(caller, body.amount);
    return envelopeWith(quote.text, { currency: quote.currency });
  },
});
