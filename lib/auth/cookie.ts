import { encodeSession, SESSION_COOKIE, sessionCookieOptions, type SessionClaims } from "@/lib/auth/session";

function serialize(name: string, value: string, o: ReturnType<typeof sessionCookieOptions> & { maxAge: number }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path}`, `Max-Age=${o.maxAge}`, "HttpOnly", `SameSite=Lax`];
  if (o.secure) parts.push("Secure");
  return parts.join("; ");
}

const isHttps = (req: Request) => new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";

/** The Set-Cookie value that starts a session for `claims`. */
export async function sessionSetCookie(req: Request, claims: SessionClaims): Promise<string> {
  const options = sessionCookieOptions(isHttps(req));
  return serialize(SESSION_COOKIE, await encodeSession(claims), options);
}

/** The Set-Cookie value that ends the session. */
export function clearSessionCookie(req: Request): string {
  return serialize(SESSION_COOKIE, "", { ...sessionCookieOptions(isHttps(req)), maxAge: 0 });
}
