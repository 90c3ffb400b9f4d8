// The session cookie: a JWT signed (HS256, jose) with SESSION_SECRET. next-auth uses these same
// encode/decode functions (lib/users/next-auth.ts), so there is one cookie format in the product.
import { randomUUID } from "node:crypto";
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
  /** The session's id, kept when an existing session's cookie is re-issued; new otherwise. */
  jti?: string;
};

/** A verified cookie: its claims plus the session's own id (logout revokes it) and expiry. */
export type DecodedSession = SessionClaims & { jti: string; exp: number };

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
    .setJti(claims.jti ?? randomUUID())
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + maxAgeSeconds)
    .sign(signingKey());
}

/**
 * The claims of a correctly signed, unexpired cookie, or null. This proves only the signature:
 * whether the session still stands is checkSession's question (lib/auth/session-check.ts).
 */
export async function decodeSession(token: string | undefined | null): Promise<DecodedSession | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, signingKey(), { algorithms: ["HS256"] });
    const id = Number(payload.sub);
    if (!Number.isInteger(id) || id <= 0) return null;
    // A cookie without an id could not be ended by logout: not a session.
    if (typeof payload.jti !== "string" || !payload.jti || typeof payload.exp !== "number") return null;
    return {
      id,
      username: String(payload.username ?? ""),
      role: Number(payload.role ?? 0),
      ver: Number(payload.ver ?? 0),
      jti: payload.jti,
      exp: payload.exp,
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
