// The one session check. The console pages' guard (proxy.ts), the root layout, every /api route
// and the relay's playground all ask it: a cookie stands while it verifies, was not ended by
// logout, belongs to a user who still exists at the auth_version it was issued under (a password
// change, a ban or a deletion bumps it), and that user is active. It reads the shared database
// on every call, with no cache, so a logout or a password change on any process or instance
// holds for the very next request everywhere.
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { bool, int, nowSeconds, str } from "@/lib/db/num";
import { isActiveUser } from "@/lib/auth/roles";
import { unauthorized } from "@/lib/errors";
import { type DecodedSession, decodeSession, readCookie, SESSION_COOKIE } from "@/lib/auth/session";

/** What a console call with a session cookie but no (or another user's) New-Api-User is told. */
export const SESSION_MSG = {
  headerMissing: "无权进行此操作，请刷新页面或清空缓存后重试",
  headerMismatch: "无权进行此操作，与登录用户不匹配",
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
  const db = await getDirectDb();
  const [row] = await db.query(
    'SELECT id, username, display_name, role, status, "group", auth_version, EXISTS (SELECT 1 FROM revoked_sessions WHERE id = ?) AS revoked FROM users WHERE id = ? AND deleted_at IS NULL',
    [session.jti, session.id],
  );
  if (!row || bool(row.revoked) || int(row.auth_version) !== session.ver) return NONE;
  const user: SessionUser = {
    id: int(row.id),
    username: str(row.username),
    display_name: str(row.display_name),
    role: int(row.role),
    status: int(row.status),
    group: str(row.group),
  };
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
export async function revokeSession(session: Pick<DecodedSession, "id" | "jti" | "exp">, db?: DirectDb): Promise<void> {
  db ??= await getDirectDb();
  await db.transaction([
    { sql: "DELETE FROM revoked_sessions WHERE expires_at < ?", params: [nowSeconds()] },
    {
      sql:
        db.kind === "mysql"
          ? "INSERT IGNORE INTO revoked_sessions (id, user_id, expires_at) VALUES (?, ?, ?)"
          : "INSERT INTO revoked_sessions (id, user_id, expires_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      params: [session.jti, session.id, session.exp],
    },
  ]);
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
