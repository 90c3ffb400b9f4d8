// Whether an e-mail address is free: the one check of every path that sets one. Its own module:
// sign-in and registration (auth.ts) and the mail flows (email.ts, which clears sign-in locks
// after a reset) both need it, and either file holding it would close an import circle.
import { ApiError } from "@/lib/errors";
import { getDirectDb } from "@/lib/db/direct";

export const EMAIL_TAKEN_MSG = "邮箱地址已被占用";

/**
 * Whether another account (deactivated ones included: they keep their address, as their name)
 * holds `email`, ignoring case: `Alice@Example.com` is alice's address too. The one check of every
 * path that sets an address: binding, an admin's edit, registration with e-mail verification.
 */
export async function emailTaken(email: string, exceptUserId = 0): Promise<boolean> {
  if (!email) return false;
  // LOWER on both sides: Prisma's case-insensitive mode exists on PostgreSQL only, and MySQL's
  // collation already ignores case.
  const db = await getDirectDb();
  const rows = await db.query("SELECT id FROM users WHERE LOWER(email) = LOWER(?) AND id <> ? LIMIT 1", [email, exceptUserId]);
  return rows.length > 0;
}

/** Throws 邮箱地址已被占用 when another account holds `email` (emailTaken). */
export async function assertEmailFree(email: string, exceptUserId = 0): Promise<void> {
  if (await emailTaken(email, exceptUserId)) throw new ApiError(EMAIL_TAKEN_MSG, 400);
}
