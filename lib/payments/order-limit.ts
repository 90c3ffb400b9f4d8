// How often one user may start a payment. Every start writes a pending order (and for Stripe asks
// Stripe for a Checkout Session), so a script must not be able to fill the orders table or spend
// the merchant's API quota: CRITICAL_RATE_LIMIT starts per CRITICAL_RATE_LIMIT_DURATION per user
// (20 per 20 minutes by default; new-api puts top-up behind its critical limit too), counted
// across EPay and Stripe and across instances (the shared cache).
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { env } from "@/lib/env";

/** Counts one payment start of `userId`; throws the 429 envelope error past the limit. */
export async function limitOrderCreation(userId: number): Promise<void> {
  await enforceRateLimit(`topup:order:${userId}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);
}
