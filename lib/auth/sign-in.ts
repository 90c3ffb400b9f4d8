// The last step of every sign-in (password, passkey, GitHub, LinuxDO, OIDC, WeChat, Telegram):
// an account with two-factor on gets a short-lived "second factor pending" cookie instead of a
// session, and POST /api/user/login/2fa turns it into one after a valid code. A passkey is itself
// two factors (possession plus the authenticator's user verification), so it skips the code.
import { createHash } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { envelope } from "@/lib/api/envelope";
import { isHttps, serializeCookie } from "@/lib/auth/cookie";
import { type SessionUserClaims, type SignInMethod, startSession } from "@/lib/auth/sessions";
import { getDirectDb } from "@/lib/db/direct";
import { bool, int } from "@/lib/db/num";
import { env, sessionSecret } from "@/lib/env";

export const PENDING_2FA_COOKIE = "qiao_2fa";
/** How long the code may take after the first factor. */
export const PENDING_2FA_SECONDS = 300;

export const SIGN_IN_MSG = {
  needCode: "请输入两步验证码",
} as const;

/** What a sign-in call answers: the session cookie, or the pending cookie and `require_2fa`. */
export type SignInResult = { state: "signed_in"; setCookie: string } | { state: "require_2fa"; setCookie: string };

/** Whether the account has a confirmed TOTP second factor. */
export async function hasTwoFactor(userId: number): Promise<boolean> {
  const db = await getDirectDb();
  const [row] = await db.query("SELECT enabled FROM two_factors WHERE user_id = ?", [userId]);
  return !!row && bool(row.enabled);
}

/**
 * Finishes a first factor: a session when the account has no second factor (or signed in with a
 * passkey), else the pending cookie. The new session counts as just re-proven (step-up).
 */
export async function completeSignIn(req: Request, user: SessionUserClaims, method: SignInMethod): Promise<SignInResult> {
  if (method !== "passkey" && (await hasTwoFactor(user.id))) {
    return { state: "require_2fa", setCookie: await pendingCookie(req, user, method) };
  }
  // A sign-in is a fresh proof of who is there, whatever the method: it counts for step-up for the
  // next few minutes. An account that signs in only through a third party has no other way to
  // step up than signing in again (or adding a passkey).
  return { state: "signed_in", setCookie: await startSession(req, user, method, { verified: true }) };
}

/**
 * Every sign-in call's answer, shaped as POST /api/user/login's: `user` (what the console stores)
 * and the session cookie, or `{require_2fa: true}` and the pending cookie (the code step is next).
 */
export function signedInResponse(user: unknown, result: SignInResult): Response {
  const headers = { "set-cookie": result.setCookie };
  if (result.state === "require_2fa") return envelope({ require_2fa: true }, SIGN_IN_MSG.needCode, { headers });
  return envelope(user, "", { headers });
}

// The pending cookie is a JWT under a key derived from SESSION_SECRET, so it can never pass as a
// session cookie (lib/auth/session.ts) nor a session cookie as it.
let keyCache: { secret: string; key: Uint8Array } | undefined;
function pendingKey(): Uint8Array {
  const secret = sessionSecret();
  if (keyCache?.secret !== secret) keyCache = { secret, key: createHash("sha256").update(`qiao-2fa-pending:${secret}`).digest() };
  return keyCache.key;
}

async function pendingCookie(req: Request, user: SessionUserClaims, method: SignInMethod): Promise<string> {
  const token = await new SignJWT({ ver: user.auth_version, method })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(user.id))
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + PENDING_2FA_SECONDS)
    .sign(pendingKey());
  return serializeCookie(PENDING_2FA_COOKIE, token, {
    path: "/",
    maxAge: PENDING_2FA_SECONDS,
    secure: isHttps(req) || env.SECURE_COOKIES,
  });
}

export type PendingSignIn = { userId: number; ver: number; method: SignInMethod };

/** The pending sign-in a `qiao_2fa` cookie value stands for, or null (absent, forged, expired). */
export async function readPendingSignIn(value: string | undefined | null): Promise<PendingSignIn | null> {
  if (!value) return null;
  try {
    const { payload } = await jwtVerify(value, pendingKey(), { algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    if (!Number.isInteger(userId) || userId <= 0) return null;
    return { userId, ver: int(payload.ver), method: String(payload.method ?? "password") as SignInMethod };
  } catch {
    return null;
  }
}

/** The Set-Cookie value that clears the pending cookie. */
export function clearPendingCookie(req: Request): string {
  return serializeCookie(PENDING_2FA_COOKIE, "", { path: "/", maxAge: 0, secure: isHttps(req) || env.SECURE_COOKIES });
}
