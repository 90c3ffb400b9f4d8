import { readApiBody, route } from "@/lib/api/route";
import { handleStripeWebhook } from "@/lib/payments/stripe-webhook";

/**
 * Stripe's event deliveries: the raw body (its signature covers the exact bytes) and the
 * Stripe-Signature header. 400 for a forged, stale or unsigned one; 200 `{ data: { outcome } }` otherwise.
 */
export const POST = route({
  auth: "public",
  handler: async ({ req }) => ({ outcome: await handleStripeWebhook(await readApiBody(req), req.headers.get("stripe-signature")) }),
});
