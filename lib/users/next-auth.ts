// next-auth configuration. Sign-in is the credentials provider over our own sign-in check
// (Turnstile when on, rate limits, password); its JWT session uses the same jose-signed cookie
// that /api/user/login sets, so both paths yield one session format and one session check.
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { decodeSession, encodeSession, SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/session";
import { revokeSession } from "@/lib/auth/session-check";
import { env, sessionSecret } from "@/lib/env";
import { requestIp } from "@/lib/net/client-ip";
import { loginWithPassword } from "@/lib/users/auth";
import { createSessionRow } from "@/lib/auth/sessions";
import { hasTwoFactor } from "@/lib/auth/sign-in";
import { loginSchema } from "@/lib/users/schemas";

type RawHeaders = Record<string, string | string[] | undefined> | undefined;

function toHeaders(raw: RawHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw ?? {})) if (typeof value === "string") headers.set(name, value);
  return headers;
}

export function authOptions(): AuthOptions {
  return {
    secret: sessionSecret(),
    session: { strategy: "jwt", maxAge: env.SESSION_MAX_AGE },
    pages: { signIn: "/login" },
    cookies: { sessionToken: { name: SESSION_COOKIE, options: sessionCookieOptions(false) } },
    providers: [
      CredentialsProvider({
        name: "password",
        credentials: {
          username: { label: "用户名", type: "text" },
          password: { label: "密码", type: "password" },
          turnstile: { label: "Turnstile", type: "text" },
        },
        async authorize(credentials, req) {
          const input = loginSchema.safeParse(credentials ?? {});
          if (!input.success) return null;
          // The Turnstile token as a form field, or in the query as /api/user/login takes it.
          const query = req.query as Record<string, unknown> | undefined;
          const turnstile = credentials?.turnstile || (typeof query?.turnstile === "string" ? query.turnstile : null);
          try {
            const headers = toHeaders(req.headers as RawHeaders);
            const user = await loginWithPassword(input.data, requestIp(headers), turnstile);
            // An account with two-factor signs in through /api/user/login, which asks for the code.
            if (await hasTwoFactor(user.id)) return null;
            const jti = await createSessionRow(headers, user.id, "password", { verified: true });
            return { id: String(user.id), name: user.username, role: user.role, ver: user.auth_version, jti } as never;
          } catch {
            return null;
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const u = user as unknown as { id: string; name: string; role: number; ver: number; jti: string };
          token.sub = u.id;
          token.jti = u.jti;
          token.username = u.name;
          token.role = u.role;
          token.ver = u.ver;
        }
        return token;
      },
    },
    events: {
      // next-auth's sign-out ends the session on the server too, as /api/user/logout does.
      async signOut({ token }) {
        if (typeof token?.jti !== "string") return;
        await revokeSession({ id: Number(token.sub), jti: token.jti });
      },
    },
    jwt: {
      async encode({ token, maxAge }) {
        // Only a session with a row (created in authorize) becomes a cookie.
        if (!token?.sub || typeof token.jti !== "string") return "";
        return encodeSession(
          {
            id: Number(token.sub),
            username: String(token.username ?? ""),
            role: Number(token.role ?? 0),
            ver: Number(token.ver ?? 0),
            // A re-issued cookie stays the same session, so logout ends every copy of it.
            jti: token.jti,
          },
          maxAge,
        );
      },
      async decode({ token }) {
        const claims = await decodeSession(token);
        return claims
          ? { sub: String(claims.id), username: claims.username, role: claims.role, ver: claims.ver, jti: claims.jti, exp: claims.exp }
          : null;
      },
    },
  };
}
