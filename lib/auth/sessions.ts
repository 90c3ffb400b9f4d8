// Signed-in sessions as rows (user_sessions): one per sign-in, its id the cookie's `jti`. The
// session check (lib/auth/session-check.ts) accepts a cookie only while its row exists, so ending
// a session anywhere is deleting its row. Personal settings list them; a password or two-factor
// change ends all but the caller's own.
import { randomUUID } from "node:crypto";
import { sessionSetCookieFor } from "@/lib/auth/cookie";
import type { StandingSession } from "@/lib/auth/session-check";
import { env } from "@/lib/env";
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { int, nowSeconds, str } from "@/lib/db/num";
import { requestIp } from "@/lib/net/client-ip";

/** How a session signed in. */
export type SignInMethod = "password" | "passkey" | "github" | "linuxdo" | "oidc" | "wechat" | "telegram";

export type SessionUserClaims = { id: number; username: string; role: number; auth_version: number };

const USER_AGENT_MAX = 512;

/**
 * Starts a session for `user`: writes its row (method, client address, user agent) and returns
 * the Set-Cookie value. A second factor, when the account has one, was checked before this is
 * called (lib/auth/sign-in.ts). `verified` marks the session as just re-proven (step-up), as a
 * sign-in with the password or a passkey is.
 */
export async function startSession(
  req: Request,
  user: SessionUserClaims,
  method: SignInMethod,
  options: { verified?: boolean } = {},
): Promise<string> {
  const jti = await createSessionRow(req.headers, user.id, method, options);
  return sessionSetCookieFor(req, { id: user.id, username: user.username, role: user.role, ver: user.auth_version, jti });
}

/** Writes a new session row and returns its id (the cookie's `jti`); startSession's first half, for next-auth. */
export async function createSessionRow(
  headers: Headers,
  userId: number,
  method: SignInMethod,
  options: { verified?: boolean; db?: DirectDb } = {},
): Promise<string> {
  const jti = randomUUID();
  const now = nowSeconds();
  const db = options.db ?? (await getDirectDb());
  await db.execute("DELETE FROM user_sessions WHERE expires_at < ?", [now]);
  await db.execute(
    "INSERT INTO user_sessions (id, user_id, method, ip, user_agent, created_at, last_seen, expires_at, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [
      jti,
      userId,
      method,
      requestIp(headers),
      (headers.get("user-agent") ?? "").slice(0, USER_AGENT_MAX),
      now,
      now,
      now + env.SESSION_MAX_AGE,
      options.verified ? now : 0,
    ],
  );
  return jti;
}

/**
 * A new cookie for a standing session (same `jti`, same row), e.g. after a password change bumped
 * auth_version: the caller stays signed in while every other session ends.
 */
export async function reissueSession(req: Request, session: Pick<StandingSession, "jti">, user: SessionUserClaims): Promise<string> {
  const db = await getDirectDb();
  await db.execute("UPDATE user_sessions SET expires_at = ? WHERE id = ?", [nowSeconds() + env.SESSION_MAX_AGE, session.jti]);
  return sessionSetCookieFor(req, { id: user.id, username: user.username, role: user.role, ver: user.auth_version, jti: session.jti });
}

export type SessionRow = {
  id: string;
  method: string;
  ip: string;
  user_agent: string;
  created_at: number;
  last_seen: number;
  expires_at: number;
};

/** The user's standing sessions, most recently seen first. */
export async function listSessions(userId: number): Promise<SessionRow[]> {
  const db = await getDirectDb();
  const rows = await db.query(
    "SELECT id, method, ip, user_agent, created_at, last_seen, expires_at FROM user_sessions WHERE user_id = ? AND expires_at >= ? ORDER BY last_seen DESC, created_at DESC",
    [userId, nowSeconds()],
  );
  return rows.map((r) => ({
    id: str(r.id),
    method: str(r.method),
    ip: str(r.ip),
    user_agent: str(r.user_agent),
    created_at: int(r.created_at),
    last_seen: int(r.last_seen),
    expires_at: int(r.expires_at),
  }));
}

/** Ends one of the user's sessions; false when it was not theirs or is already gone. */
export async function endSession(userId: number, sessionId: string): Promise<boolean> {
  const db = await getDirectDb();
  return (await db.execute("DELETE FROM user_sessions WHERE id = ? AND user_id = ?", [sessionId, userId])) > 0;
}

/** Ends every session of the user but `keep` (the caller's own; none when null). Returns how many ended. */
export async function endOtherSessions(userId: number, keep: string | null): Promise<number> {
  const db = await getDirectDb();
  return keep === null
    ? db.execute("DELETE FROM user_sessions WHERE user_id = ?", [userId])
    : db.execute("DELETE FROM user_sessions WHERE user_id = ? AND id <> ?", [userId, keep]);
}

/** Records that the session's holder just proved again who they are (lib/auth/step-up.ts). */
export async function markSessionVerified(sessionId: string): Promise<void> {
  const db = await getDirectDb();
  await db.execute("UPDATE user_sessions SET verified_at = ? WHERE id = ?", [nowSeconds(), sessionId]);
}
