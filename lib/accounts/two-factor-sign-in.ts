// The second half of a sign-in for an account with two-factor on (POST /api/user/login/2fa): the
// first factor (password, GitHub, LinuxDO, OIDC, WeChat, Telegram) left the short-lived pending
// cookie (lib/auth/sign-in.ts); a TOTP or backup code turns it into a session. The pending cookie
// stands only for the account as it was then: deleted, banned or with a new password since
// (auth_version moved), it is refused and the sign-in starts again.
import { BANNED_MESSAGE } from "@/lib/auth/authenticate";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { isActiveUser } from "@/lib/auth/roles";
import { readCookie } from "@/lib/auth/session";
import { startSession } from "@/lib/auth/sessions";
import { clearPendingCookie, PENDING_2FA_COOKIE, readPendingSignIn } from "@/lib/auth/sign-in";
import { getDirectDb } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import { env } from "@/lib/env";
import { ApiError, forbidden } from "@/lib/errors";
import { requestIp } from "@/lib/net/client-ip";
import { verifySecondFactor } from "@/lib/accounts/two-factor";
import { getSelf } from "@/lib/users/self";
import type { UserView } from "@/lib/users/view";

export const SIGN_IN_2FA_MSG = {
  expired: "登录已超时或已失效，请重新登录",
} as const;

/** Checks the code for the pending sign-in; returns the user (as /api/user/login answers it) and the Set-Cookie values. */
export async function finishTwoFactorSignIn(req: Request, code: string): Promise<{ user: UserView; setCookies: string[] }> {
  const ip = requestIp(req.headers);
  await enforceRateLimit(`login:2fa:ip:${ip}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);
  const pending = await readPendingSignIn(readCookie(req.headers.get("cookie"), PENDING_2FA_COOKIE));
  if (!pending) throw new ApiError(SIGN_IN_2FA_MSG.expired, 401);
  const db = await getDirectDb();
  const [row] = await db.query("SELECT id, username, role, status, auth_version FROM users WHERE id = ? AND deleted_at IS NULL", [
    pending.userId,
  ]);
  if (!row || int(row.auth_version) !== pending.ver) throw new ApiError(SIGN_IN_2FA_MSG.expired, 401);
  if (!isActiveUser({ status: int(row.status) })) throw forbidden(BANNED_MESSAGE);
  const claims = { id: int(row.id), username: str(row.username), role: int(row.role), auth_version: int(row.auth_version) };
  await verifySecondFactor(claims.id, code, ip);
  // Both factors were just proven: the session counts as stepped up.
  const session = await startSession(req, claims, pending.method, { verified: true });
  return { user: await getSelf(claims.id), setCookies: [session, clearPendingCookie(req)] };
}
