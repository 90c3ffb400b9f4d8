// Short-lived e-mail secrets: verification codes (register, bind) and password-reset tokens. They
// live in the shared cache (lib/cache/shared.ts: Redis when configured), so a code mailed by one
// instance is accepted by any other, and each is taken once: a compare-and-delete, so two
// instances racing with one code cannot both accept it. Wrong guesses are counted per address;
// after MAX_WRONG the code is dropped.
import { randomBytes } from "node:crypto";
import { sharedCache } from "@/lib/cache/shared";

export const VERIFICATION_TTL_SECONDS = 600;
const MAX_WRONG = 5;

/** What a secret is for: one code per purpose and address at a time. */
export type VerificationPurpose = "email" | "reset";

const keyOf = (purpose: VerificationPurpose, email: string) => `verify:${purpose}:${email.trim().toLowerCase()}`;

/** A 6-character code (hex, as the reference's first 6 of a UUID). */
export const newVerificationCode = () => randomBytes(3).toString("hex");

/** A reset token: 32 hex characters. */
export const newResetToken = () => randomBytes(16).toString("hex");

/** Stores `code` for `email`, replacing an earlier one. */
export async function storeVerificationCode(
  purpose: VerificationPurpose,
  email: string,
  code: string,
  ttlSeconds = VERIFICATION_TTL_SECONDS,
) {
  const cache = sharedCache();
  await cache.del(`${keyOf(purpose, email)}:wrong`);
  await cache.set(keyOf(purpose, email), code, ttlSeconds);
}

/** True once for a matching, unexpired code; the code is consumed. */
export async function checkVerificationCode(purpose: VerificationPurpose, email: string, code: string): Promise<boolean> {
  const key = keyOf(purpose, email);
  const cache = sharedCache();
  if (code && (await cache.takeIf(key, code.trim().toLowerCase()))) return true;
  if ((await cache.incr(`${key}:wrong`, VERIFICATION_TTL_SECONDS)) >= MAX_WRONG) await cache.del(key);
  return false;
}
