// Step-up in API tests: a session cookie's row, marked as verified at a chosen time (what
// POST /api/verify does at the current time), without going through a password or a code.
import { decodeSession } from "@/lib/auth/session";
import { getDirectDb } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";

/** The session row id (`jti`) of a `qiao_session=…` cookie. */
export async function sessionIdOf(cookie: string): Promise<string> {
  const session = await decodeSession(cookie.replace(/^qiao_session=/, ""));
  if (!session) throw new Error("not a session cookie");
  return session.jti;
}

/** Marks the cookie's session as verified at `at` (now by default): within 5 minutes it may step up. */
export async function markVerified(cookie: string, at = nowSeconds()): Promise<void> {
  const db = await getDirectDb();
  await db.execute("UPDATE user_sessions SET verified_at = ? WHERE id = ?", [at, await sessionIdOf(cookie)]);
}
