// The one session check. The console pages' guard (proxy.ts), the root layout, every /api route
// and the relay's playground all ask it: a cookie stands while it verifies, was not ended by
// logout, belongs to a user who still exists at the auth_version it was issued under (a password
// change, a ban or a deletion bumps it), and that user is active. It reads the shared database
// on every call, with no cache, so a logout or a password change on any process or instance
// holds for the very next request everywhere.
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { isActiveUser } from "@/lib/auth/roles";
import { type DecodedSession, decodeSession, readCookie, SESSION_COOKIE } from "@/lib/auth/session";

const SESSION_USER_SELECT = {
  id: true,
  username: true,
  display_name: true,
  role: true,
  status: true,
  group: true,
  auth_version: true,
} as const;

export type SessionUser = { id: number; username: string; display_name: string; role: number; status: number; group: string };

export type SessionCheck =
  | { state: "none" }
  /** The session stands but its user may not act (banned): callers say so instead of "log in". */
  | { state: "inactive"; user: SessionUser; session: DecodedSession }
  | { state: "active"; user: SessionUser; session: DecodedSession };

const NONE: SessionCheck = { state: "none" };

/** Checks the session cookie's value (see the file comment). */
export async function checkSession(token: string | undefined | null): Promise<SessionCheck> {
  const session = await decodeSession(token);
  if (!session) return NONE;
  const db = await getDb();
  const [row, revoked] = await Promise.all([
    db.user.findFirst({ where: { id: session.id, deleted_at: null }, select: SESSION_USER_SELECT }),
    db.revokedSession.findUnique({ where: { id: session.jti }, select: { id: true } }),
  ]);
  if (!row || revoked || row.auth_version !== session.ver) return NONE;
  const { auth_version: _version, ...user } = row;
  return { state: isActiveUser(user) ? "active" : "inactive", user, session };
}

/** checkSession for the session cookie in a Cookie header. */
export function checkSessionCookie(cookieHeader: string | null): Promise<SessionCheck> {
  return checkSession(readCookie(cookieHeader, SESSION_COOKIE));
}

/**
 * Ends one session for good (logout): its cookie is refused from now on, on every instance, even
 * if a copy of it was kept. Rows of cookies that have expired anyway are pruned on the way.
 */
export async function revokeSession(session: Pick<DecodedSession, "id" | "jti" | "exp">): Promise<void> {
  const db = await getDb();
  await db.revokedSession.deleteMany({ where: { expires_at: { lt: nowSeconds() } } });
  await db.revokedSession.upsert({
    where: { id: session.jti },
    create: { id: session.jti, user_id: session.id, expires_at: session.exp },
    update: {},
  });
}

/** Logout: ends the session of the cookie in a Cookie header, if it carries a signed one. */
export async function endSessionCookie(cookieHeader: string | null): Promise<void> {
  const session = await decodeSession(readCookie(cookieHeader, SESSION_COOKIE));
  if (session) await revokeSession(session);
}
