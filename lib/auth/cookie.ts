import { encodeSession, SESSION_COOKIE, sessionCookieOptions, type SessionClaims } from "@/lib/auth/session";

export function serializeCookie(name: string, value: string, o: { path: string; maxAge: number; secure: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path}`, `Max-Age=${o.maxAge}`, "HttpOnly", "SameSite=Lax"];
  if (o.secure) parts.push("Secure");
  return parts.join("; ");
}

export const isHttps = (req: Request) => new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";

/**
 * The Set-Cookie value carrying a session cookie for `claims`. Only lib/auth/sessions.ts calls
 * this: a cookie is worth nothing without its user_sessions row.
 */
export async function sessionSetCookieFor(req: Request, claims: SessionClaims & { jti: string }): Promise<string> {
  const options = sessionCookieOptions(isHttps(req));
  return serializeCookie(SESSION_COOKIE, await encodeSession(claims), options);
}

/** The Set-Cookie value that ends the session. */
export function clearSessionCookie(req: Request): string {
  return serializeCookie(SESSION_COOKIE, "", { ...sessionCookieOptions(isHttps(req)), maxAge: 0 });
}
