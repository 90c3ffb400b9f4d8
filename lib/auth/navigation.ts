// Where a request started, as the browser tells it (Fetch Metadata: Sec-Fetch-Site and
// Sec-Fetch-Mode, sent by every current browser and settable by no page). A console call names its
// user in New-Api-User, which another site cannot make a browser send; but a few of new-api's
// calls are reached by the browser itself, a top-level navigation with the session cookie alone
// (the Telegram widget's redirect to /api/oauth/telegram/bind), and some sign-ins are plain GETs.
// Lax cookies follow any link from any site, so without a look at where the request came from a
// page elsewhere could bind its own Telegram account to a visitor's account (then sign in as
// them), or sign the visitor in to an account of its choosing.
import { type Caller, optionalCaller } from "@/lib/auth/authenticate";
import { forbidden, unauthorized } from "@/lib/errors";

export const NAVIGATION_MSG = {
  crossSite: "请在本站页面中完成此操作",
} as const;

/** Whether the request is the browser's own navigation (a link, a redirect, a typed address), not a script's call. */
export function isNavigation(headers: Headers): boolean {
  return headers.get("sec-fetch-mode") === "navigate";
}

/**
 * Whether the browser says the request started on one of our own pages; `unknown` answers for a
 * browser that says nothing (one from before 2023).
 */
export function cameFromOurPages(headers: Headers, unknown: boolean): boolean {
  const site = headers.get("sec-fetch-site");
  return site === null ? unknown : site === "same-origin";
}

/** Refuses a request a browser says another site started (a link or an image elsewhere). */
export function refuseCrossSite(headers: Headers): void {
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") throw forbidden(NAVIGATION_MSG.crossSite);
}

/**
 * The signed-in user of a navigation that carries only the session cookie: taken only when it
 * started on one of our pages.
 */
export async function navigationCaller(headers: Headers): Promise<Caller> {
  if (!cameFromOurPages(headers, false)) throw forbidden(NAVIGATION_MSG.crossSite);
  const caller = await optionalCaller(headers);
  if (!caller) throw unauthorized();
  return caller;
}
