// The Stripe events the webhook (lib/payments/stripe-webhook.ts) acts on: the ones to enable on its
// endpoint in Stripe's dashboard, as the system tab says. Client-safe.
export const STRIPE_WEBHOOK_EVENTS = [
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.expired",
] as const;

/** The path Stripe delivers them to. */
export const STRIPE_WEBHOOK_PATH = "/api/stripe/webhook";
