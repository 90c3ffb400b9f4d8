// Who is looking at a console page, for server components. proxy.ts already sent visitors without
// a standing session (or with too low a role) away; this reads the same check again because a page
// must never trust that it was reached through the proxy.
import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { hasTier, type RoleTier } from "@/lib/auth/roles";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { checkSession, type SessionUser } from "@/lib/auth/session-check";
import { loginPath, SIGNED_IN_COOKIE } from "@/lib/auth/route-access";

/** The active session's user, or a redirect to the login page (the expired notice for someone who was logged in, as proxy.ts). */
export async function pageUser(tier: RoleTier = "user"): Promise<SessionUser> {
  const jar = await cookies();
  const cookie = jar.get(SESSION_COOKIE)?.value;
  const check = await checkSession(cookie);
  if (check.state !== "active") redirect(loginPath(!!cookie || jar.has(SIGNED_IN_COOKIE)));
  if (!hasTier(check.user, tier)) notFound();
  return check.user;
}

/** The session's user when there is one (public pages that show more to members). */
export async function optionalPageUser(): Promise<SessionUser | null> {
  const check = await checkSession((await cookies()).get(SESSION_COOKIE)?.value);
  return check.state === "active" ? check.user : null;
}
