// Which console pages need a session and which role tier (spec §2 route table, §6). Pure, so
// proxy.ts stays a thin adapter and the table is unit-tested. Paths not listed here are either
// public pages or unknown paths, which must reach the not-found page rather than a login redirect.
import { ROLE } from "@/lib/auth/roles";

export type PageAccess = "public" | "user" | "admin" | "root";

/** Pages needing a session; `prefix` also covers sub-paths such as /chat/0 or /channel/edit/3. */
const GUARDED: { path: string; access: Exclude<PageAccess, "public">; prefix?: boolean }[] = [
  { path: "/token", access: "user" },
  { path: "/playground", access: "user" },
  { path: "/topup", access: "user" },
  { path: "/log", access: "user" },
  { path: "/detail", access: "user" },
  { path: "/midjourney", access: "user" },
  { path: "/task", access: "user" },
  { path: "/setting", access: "user" },
  { path: "/chat", access: "user", prefix: true },
  { path: "/chat2link", access: "user" },
  { path: "/channel", access: "admin", prefix: true },
  { path: "/redemption", access: "admin", prefix: true },
  { path: "/orders", access: "admin" },
  { path: "/user", access: "admin" },
  { path: "/user/edit", access: "admin", prefix: true },
  { path: "/audit", access: "root" },
];

/** Settings tabs only a super admin may open. */
const ROOT_SETTING_TABS = new Set(["operation", "system", "other", "import"]);

export function pageAccess(pathname: string): PageAccess {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  for (const rule of GUARDED) {
    if (path === rule.path || (rule.prefix && path.startsWith(`${rule.path}/`))) return rule.access;
  }
  return "public";
}

export type GuardDecision = { action: "next" } | { action: "redirect"; to: string };

/**
 * Set by the browser while it keeps a stored user (lib/client/storage.ts writeUser/clearUser), so
 * the server can tell what spec §4 tells apart by that stored user: a visitor who never logged in
 * goes to the plain login page, one whose session has gone (expired, revoked, its cookie deleted)
 * to `?expired=true` and its notice. Not a credential: it only chooses between two login URLs.
 */
export const SIGNED_IN_COOKIE = "qiao_signed_in";

export const EXPIRED_LOGIN_PATH = "/login?expired=true";

/** Where a request without a standing session goes: the expired notice only for someone who was logged in. */
export function loginPath(wasSignedIn: boolean): string {
  return wasSignedIn ? EXPIRED_LOGIN_PATH : "/login";
}

/**
 * The proxy's decision for one page request. `session` is the decoded cookie (null when absent
 * or invalid); `wasSignedIn` says the browser held a session (a session cookie that no longer
 * stands, or the SIGNED_IN_COOKIE marker), as opposed to a fresh visitor.
 */
export function guardPage(
  pathname: string,
  searchParams: URLSearchParams,
  session: { role: number } | null,
  wasSignedIn: boolean,
): GuardDecision {
  const access = pageAccess(pathname);
  if (access === "public") return { action: "next" };
  if (!session) return { action: "redirect", to: loginPath(wasSignedIn) };
  if (access === "admin" && session.role < ROLE.admin) return { action: "redirect", to: "/" };
  if (access === "root" && session.role < ROLE.root) return { action: "redirect", to: "/" };
  if (pathname.replace(/\/+$/, "") === "/setting" && session.role < ROLE.root) {
    const tab = searchParams.get("tab");
    if (tab && ROOT_SETTING_TABS.has(tab)) return { action: "redirect", to: "/setting" };
  }
  return { action: "next" };
}
