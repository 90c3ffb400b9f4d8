// Who is calling an /api route: a session cookie plus the New-Api-User header, or a system
// access token in Authorization. Role and status are read from the database on every call, so a
// ban or demotion applies at once.
import { createHash } from "node:crypto";
import { unauthorized, forbidden } from "@/lib/api/errors";
import { getDb } from "@/lib/db";
import { decodeSession, readCookie, SESSION_COOKIE } from "@/lib/auth/session";
import { hasTier, USER_STATUS, VALID_ROLES, type RoleTier } from "@/lib/auth/roles";

export type Caller = {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
  /** How the caller proved itself; the playground refuses access tokens. */
  via: "session" | "access_token";
};

const CALLER_SELECT = { id: true, username: true, display_name: true, role: true, status: true, group: true, auth_version: true } as const;

export const hashAccessToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The session caller, or null when no valid session cookie is present (no header check). */
export async function sessionCaller(cookieHeader: string | null): Promise<(Caller & { ver: number }) | null> {
  const claims = await decodeSession(readCookie(cookieHeader, SESSION_COOKIE));
  if (!claims) return null;
  const db = await getDb();
  const user = await db.user.findFirst({ where: { id: claims.id, deleted_at: null }, select: CALLER_SELECT });
  if (!user || user.auth_version !== claims.ver) return null;
  const { auth_version, ...rest } = user;
  return { ...rest, via: "session", ver: auth_version };
}

export async function authenticate(headers: Headers, tier: RoleTier): Promise<Caller> {
  const session = await sessionCaller(headers.get("cookie"));
  let caller: Caller;
  if (session) {
    const claimed = headers.get("new-api-user");
    if (!claimed) throw unauthorized("无权进行此操作，请刷新页面或清空缓存后重试");
    if (!/^\d+$/.test(claimed) || Number(claimed) !== session.id) throw unauthorized("无权进行此操作，与登录用户不匹配");
    const { ver: _ver, ...rest } = session;
    caller = rest;
  } else {
    const raw = (headers.get("authorization") ?? "").replace(/^Bearer\s+/i, "").trim();
    if (!raw) throw unauthorized();
    const db = await getDb();
    const user = await db.user.findFirst({
      where: { access_token_hash: hashAccessToken(raw), deleted_at: null },
      select: CALLER_SELECT,
    });
    if (!user) throw unauthorized("无权进行此操作，access token 无效");
    const { auth_version: _v, ...rest } = user;
    caller = { ...rest, via: "access_token" };
  }
  if (caller.status === USER_STATUS.disabled) throw forbidden("用户已被封禁");
  if (!VALID_ROLES.includes(caller.role)) throw forbidden("无权进行此操作，用户角色不合法");
  if (!hasTier(caller, tier)) throw forbidden("无权进行此操作，权限不足");
  return caller;
}
