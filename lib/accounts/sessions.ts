// The caller's own signed-in sessions (personal settings → 登录会话): list them, end one, end all
// but the caller's. Rows are user_sessions (lib/auth/sessions.ts); every query is scoped to the
// caller, so another account's session id is simply not found. A caller using a system access
// token has no session of its own: none is "current", and "the others" are all of them.
import { describeUserAgent } from "@/lib/accounts/user-agent";
import type { Caller } from "@/lib/auth/authenticate";
import { endOtherSessions, endSession, listSessions } from "@/lib/auth/sessions";
import { notFound } from "@/lib/errors";

export const OWN_SESSION_MSG = {
  notFound: "会话不存在或已结束",
} as const;

/** One session as GET /api/user/self/sessions answers it. */
export type OwnSession = {
  id: string;
  /** The session this request came with. */
  current: boolean;
  /** Browser and system, e.g. "Chrome · macOS" (lib/accounts/user-agent.ts). */
  device: string;
  user_agent: string;
  ip: string;
  /** How it signed in: password, passkey, github, linuxdo, oidc, wechat or telegram. */
  method: string;
  created_at: number;
  last_seen: number;
};

/** The caller's standing sessions: the current one first, then the most recently seen. */
export async function listOwnSessions(caller: Caller): Promise<OwnSession[]> {
  const currentId = caller.session?.jti;
  const rows = await listSessions(caller.id);
  return rows
    .map((row) => ({
      id: row.id,
      current: row.id === currentId,
      device: describeUserAgent(row.user_agent),
      user_agent: row.user_agent,
      ip: row.ip,
      method: row.method,
      created_at: row.created_at,
      last_seen: row.last_seen,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current));
}

/** Ends one of the caller's sessions; `current` says it was the caller's own (who is now signed out). */
export async function endOwnSession(caller: Caller, sessionId: string): Promise<{ current: boolean }> {
  if (!(await endSession(caller.id, sessionId))) throw notFound(OWN_SESSION_MSG.notFound);
  return { current: sessionId === caller.session?.jti };
}

/** Ends every session of the caller but the one it called with; answers how many ended. */
export async function endOwnOtherSessions(caller: Caller): Promise<{ count: number }> {
  return { count: await endOtherSessions(caller.id, caller.session?.jti ?? null) };
}
