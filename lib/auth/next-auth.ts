// next-auth configuration. Sign-in is the credentials provider over our own password check;
// its JWT session uses the same jose-signed cookie that /api/user/login sets, so both paths
// yield one session format.
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { decodeSession, encodeSession, SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/session";
import { env, sessionSecret } from "@/lib/env";
import { loginWithPassword } from "@/lib/users/auth";
import { loginSchema } from "@/lib/users/schemas";
import { CLIENT_IP_HEADER } from "@/lib/net/client-ip";

export function authOptions(): AuthOptions {
  return {
    secret: sessionSecret(),
    session: { strategy: "jwt", maxAge: env.SESSION_MAX_AGE },
    pages: { signIn: "/login" },
    cookies: { sessionToken: { name: SESSION_COOKIE, options: sessionCookieOptions(false) } },
    providers: [
      CredentialsProvider({
        name: "password",
        credentials: { username: { label: "用户名", type: "text" }, password: { label: "密码", type: "password" } },
        async authorize(credentials, req) {
          const input = loginSchema.safeParse(credentials ?? {});
          if (!input.success) return null;
          const ip = String((req.headers as Record<string, string> | undefined)?.[CLIENT_IP_HEADER] ?? "unknown");
          try {
            const user = await loginWithPassword(input.data, ip);
            return { id: String(user.id), name: user.username, role: user.role, ver: user.auth_version } as never;
          } catch {
            return null;
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const u = user as unknown as { id: string; name: string; role: number; ver: number };
          token.sub = u.id;
          token.username = u.name;
          token.role = u.role;
          token.ver = u.ver;
        }
        return token;
      },
    },
    jwt: {
      async encode({ token, maxAge }) {
        if (!token?.sub) return "";
        return encodeSession(
          { id: Number(token.sub), username: String(token.username ?? ""), role: Number(token.role ?? 0), ver: Number(token.ver ?? 0) },
          maxAge,
        );
      },
      async decode({ token }) {
        const claims = await decodeSession(token);
        return claims ? { sub: String(claims.id), username: claims.username, role: claims.role, ver: claims.ver } : null;
      },
    },
  };
}
