// Who is calling an /api route: a session cookie plus the New-Api-User header, or a system
// access token in Authorization. Role and status are read from the database on every call, so a
// ban or demotion applies at once.
import { createHash } from "node:crypto";
import { unauthorized, forbidden } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { checkSessionCookie, SESSION_MSG, type StandingSession } from "@/lib/auth/session-check";
import { hasTier, isActiveUser, VALID_ROLES, type RoleTier } from "@/lib/auth/roles";

export type Caller = {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
  /** How the caller proved itself; the playground refuses access tokens. */
  via: "session" | "access_token";
  /** The caller's session when `via` is "session" (its id, and when it last proved itself again). */
  session?: StandingSession;
};

const CALLER_SELECT = { id: true, username: true, display_name: true, role: true, status: true, group: true } as const;

export const BANNED_MESSAGE = "用户已被封禁";

export const hashAccessToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The caller of an `optional` route: an active session's user, or null (no header check). */
export async function optionalCaller(headers: Headers): Promise<Caller | null> {
  const check = await checkSessionCookie(headers.get("cookie"));
  return check.state === "active" ? { ...check.user, via: "session", session: check.session } : null;
}

export async function authenticate(headers: Headers, tier: RoleTier): Promise<Caller> {
  const session = await checkSessionCookie(headers.get("cookie"));
  let caller: Caller;
  if (session.state !== "none") {
    const claimed = headers.get("new-api-user");
    if (!claimed) throw unauthorized(SESSION_MSG.headerMissing);
    if (!/^\d+$/.test(claimed) || Number(claimed) !== session.user.id) throw unauthorized(SESSION_MSG.headerMismatch);
    caller = { ...session.user, via: "session", session: session.session };
  } else {
    const raw = (headers.get("authorization") ?? "").replace(/^Bearer\s+/i, "").trim();
    if (!raw) throw unauthorized();
    const db = await getDb();
    const user = await db.user.findFirst({
      where: { access_token_hash: hashAccessToken(raw), deleted_at: null },
      select: CALLER_SELECT,
    });
    if (!user) throw unauthorized("无权进行此操作，access token 无效");
    caller = { ...user, via: "access_token" };
  }
  if (!isActiveUser(caller)) throw forbidden(BANNED_MESSAGE);
  if (!VALID_ROLES.includes(caller.role)) throw forbidden("无权进行此操作，用户角色不合法");
  if (!hasTier(caller, tier)) throw forbidden("无权进行此操作，权限不足");
  return caller;
}
