// Page-level guard (spec §2, §6): console pages need a session that still stands (the same check
// /api and the playground use) and the right role tier. API routes re-check everything
// themselves; relay paths never come through here.
import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { checkSession } from "@/lib/auth/session-check";
import { guardPage, pageAccess } from "@/lib/ui/route-access";

export async function proxy(req: NextRequest) {
  const { pathname, searchParams } = req.nextUrl;
  if (pageAccess(pathname) === "public") return NextResponse.next();
  const cookie = req.cookies.get(SESSION_COOKIE)?.value;
  const check = await checkSession(cookie);
  const session = check.state === "active" ? check.user : null;
  const decision = guardPage(pathname, searchParams, session, !!cookie);
  if (decision.action === "next") return NextResponse.next();
  const res = NextResponse.redirect(new URL(decision.to, req.url));
  // A cookie that no longer stands (expired, tampered, logged out, revoked, banned) is dropped.
  if (cookie && !session) res.cookies.delete(SESSION_COOKIE);
  return res;
}

export const config = {
  // Everything except the API, the relay (/v1, /v1beta, /mj, /suno, /pg, /dashboard), Next's own
  // assets and files with an extension (public/).
  matcher: ["/((?!api|v1|v1beta|mj|suno|pg|dashboard|_next|.*\\..*).*)"],
};
