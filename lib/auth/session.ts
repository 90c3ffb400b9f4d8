// The session cookie: a JWT signed (HS256, jose) with SESSION_SECRET. next-auth uses these same
// encode/decode functions (lib/auth/next-auth.ts), so there is one cookie format in the product.
import { jwtVerify, SignJWT } from "jose";
import { env, sessionSecret } from "@/lib/env";

export const SESSION_COOKIE = "qiao_session";

export type SessionClaims = {
  /** user id */
  id: number;
  username: string;
  role: number;
  /** users.auth_version when the session was issued; a bump revokes the session. */
  ver: number;
};

let keyCache: { secret: string; key: Uint8Array } | undefined;
function signingKey(): Uint8Array {
  const secret = sessionSecret();
  if (keyCache?.secret !== secret) keyCache = { secret, key: new TextEncoder().encode(secret) };
  return keyCache.key;
}

export async function encodeSession(claims: SessionClaims, maxAgeSeconds = env.SESSION_MAX_AGE): Promise<string> {
  return new SignJWT({ username: claims.username, role: claims.role, ver: claims.ver })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(claims.id))
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + maxAgeSeconds)
    .sign(signingKey());
}

export async function decodeSession(token: string | undefined | null): Promise<SessionClaims | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, signingKey(), { algorithms: ["HS256"] });
    const id = Number(payload.sub);
    if (!Number.isInteger(id) || id <= 0) return null;
    return {
      id,
      username: String(payload.username ?? ""),
      role: Number(payload.role ?? 0),
      ver: Number(payload.ver ?? 0),
    };
  } catch {
    return null;
  }
}

export function sessionCookieOptions(secure: boolean) {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    path: "/",
    secure: secure || env.SECURE_COOKIES,
    maxAge: env.SESSION_MAX_AGE,
  };
}

/** Reads one cookie from a Cookie header without parsing the rest. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}
