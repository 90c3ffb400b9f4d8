import { route } from "@/lib/api/route";
import { stripePaySchema } from "@/lib/payments/schemas";
import { startStripeCheckout } from "@/lib/payments/stripe-checkout";

/** `{ data: { pay_link } }`: the Stripe Checkout page of a new pending order; the wallet goes there. */
export const POST = route({ auth: "user", body: stripePaySchema, handler: ({ caller, body }) => startStripeCheckout(caller, body.amount) });
