// The one session check. The console pages' guard (proxy.ts), the root layout, every /api route
// and the relay's playground all ask it: a cookie stands while it verifies, its session row
// (user_sessions, lib/auth/sessions.ts) still exists, it belongs to a user who still exists at the
// auth_version it was issued under (a ban or a deletion bumps it), and that user is active. It
// reads the shared database on every call, with no cache, so a logout, a revoked session or a
// password change on any process or instance holds for the very next request everywhere.
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { int, nowSeconds, str } from "@/lib/db/num";
import { isActiveUser } from "@/lib/auth/roles";
import { unauthorized } from "@/lib/errors";
import { type DecodedSession, decodeSession, readCookie, SESSION_COOKIE } from "@/lib/auth/session";

/** What a console call with a session cookie but no (or another user's) New-Api-User is told. */
export const SESSION_MSG = {
  headerMissing: "无权进行此操作，请刷新页面或清空缓存后重试",
  headerMismatch: "无权进行此操作，与登录用户不匹配",
} as const;

export type SessionUser = { id: number; username: string; display_name: string; role: number; status: number; group: string };

/** A cookie's claims with what its session row adds. */
export type StandingSession = DecodedSession & {
  /** When the holder last proved again who they are (lib/auth/step-up.ts); 0 never. */
  verified_at: number;
};

export type SessionCheck =
  | { state: "none" }
  /** The session stands but its user may not act (banned): callers say so instead of "log in". */
  | { state: "inactive"; user: SessionUser; session: StandingSession }
  | { state: "active"; user: SessionUser; session: StandingSession };

const NONE: SessionCheck = { state: "none" };

/** A session whose `last_seen` is older than this is refreshed by the check (one write a minute at most). */
const LAST_SEEN_EVERY_SECONDS = 60;

/** Checks the session cookie's value (see the file comment). */
export async function checkSession(token: string | undefined | null): Promise<SessionCheck> {
  const session = await decodeSession(token);
  if (!session) return NONE;
  const db = await getDirectDb();
  const [row] = await db.query(
    'SELECT u.id, u.username, u.display_name, u.role, u.status, u."group", u.auth_version, s.last_seen, s.verified_at FROM users u JOIN user_sessions s ON s.user_id = u.id WHERE s.id = ? AND u.id = ? AND u.deleted_at IS NULL',
    [session.jti, session.id],
  );
  if (!row || int(row.auth_version) !== session.ver) return NONE;
  const now = nowSeconds();
  if (now - int(row.last_seen) >= LAST_SEEN_EVERY_SECONDS) {
    // Best effort: a refresh that fails only leaves "last seen" a minute older.
    db.execute("UPDATE user_sessions SET last_seen = ? WHERE id = ?", [now, session.jti]).catch(() => {});
  }
  const user: SessionUser = {
    id: int(row.id),
    username: str(row.username),
    display_name: str(row.display_name),
    role: int(row.role),
    status: int(row.status),
    group: str(row.group),
  };
  const standing: StandingSession = { ...session, verified_at: int(row.verified_at) };
  return { state: isActiveUser(user) ? "active" : "inactive", user, session: standing };
}

/** checkSession for the session cookie in a Cookie header. */
export function checkSessionCookie(cookieHeader: string | null): Promise<SessionCheck> {
  return checkSession(readCookie(cookieHeader, SESSION_COOKIE));
}

/** Ends one session for good (logout): its cookie is refused from now on on every instance, even if a copy of it was kept. */
export async function revokeSession(session: Pick<DecodedSession, "id" | "jti">, db?: DirectDb): Promise<void> {
  db ??= await getDirectDb();
  await db.execute("DELETE FROM user_sessions WHERE id = ? AND user_id = ?", [session.jti, session.id]);
}

/**
 * Logout: ends the session of the cookie in `headers`, if it carries a signed one. Like every
 * console call it must name that session's user in New-Api-User: another site can make a browser
 * send the cookie (an <img> of /api/user/logout) but not that header. Without a session there is
 * nothing to end, and the answer only clears the cookie.
 */
export async function endSessionCookie(headers: Headers): Promise<void> {
  const session = await decodeSession(readCookie(headers.get("cookie"), SESSION_COOKIE));
  if (!session) return;
  const claimed = headers.get("new-api-user");
  if (!claimed) throw unauthorized(SESSION_MSG.headerMissing);
  if (claimed !== String(session.id)) throw unauthorized(SESSION_MSG.headerMismatch);
  await revokeSession(session);
}
