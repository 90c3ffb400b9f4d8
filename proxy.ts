// Page-level guard (spec §2, §6): console pages need a session that still stands (the same check
// /api and the playground use) and the right role tier, and every page gets its
// Content-Security-Policy with a fresh script nonce. API routes re-check everything themselves;
// relay paths never come through here.
import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { checkSession } from "@/lib/auth/session-check";
import { isProduction } from "@/lib/env";
import { consolePolicy, newNonce, NONCE_HEADER } from "@/lib/ui/csp";
import { pageFormTargets } from "@/lib/payments/form-targets";
import { guardPage, pageAccess, SIGNED_IN_COOKIE } from "@/lib/auth/route-access";

export async function proxy(req: NextRequest) {
  const nonce = newNonce();
  const policy = consolePolicy(nonce, !isProduction, await pageFormTargets());
  const res = await guard(req, () => {
    // Next reads the nonce for its own scripts from the request's policy; the layout from NONCE_HEADER.
    const headers = new Headers(req.headers);
    headers.set("content-security-policy", policy);
    headers.set(NONCE_HEADER, nonce);
    return NextResponse.next({ request: { headers } });
  });
  res.headers.set("content-security-policy", policy);
  return res;
}

async function guard(req: NextRequest, next: () => NextResponse): Promise<NextResponse> {
  const { pathname, searchParams } = req.nextUrl;
  if (pageAccess(pathname) === "public") return next();
  const cookie = req.cookies.get(SESSION_COOKIE)?.value;
  const check = await checkSession(cookie);
  const session = check.state === "active" ? check.user : null;
  const decision = guardPage(pathname, searchParams, session, !!cookie || req.cookies.has(SIGNED_IN_COOKIE));
  if (decision.action === "next") return next();
  const res = NextResponse.redirect(new URL(decision.to, req.url));
  if (!session) {
    // A cookie that no longer stands (expired, tampered, logged out, revoked, banned) is dropped,
    // and so is the marker: the expired notice is said once, the next visit is a fresh one.
    if (cookie) res.cookies.delete(SESSION_COOKIE);
    if (req.cookies.has(SIGNED_IN_COOKIE)) res.cookies.delete(SIGNED_IN_COOKIE);
  }
  return res;
}

export const config = {
  // Everything except the API, the relay (/v1, /v1beta, /mj, /{mode}/mj, /suno, /pg, /dashboard),
  // the probes (/healthz, /readyz), /metrics, Next's own assets and files with an extension (public/). Only
  // whole first segments are excluded, so a page such as /apikeys or /pgx still gets the guard and the policy.
  matcher: ["/((?!(?:api|v1|v1beta|mj|suno|pg|dashboard|healthz|readyz|metrics|_next)(?:/|$)|(?:mj-)?(?:fast|relax|turbo)/mj/|.*\\..*).*)"],
};
