// The HTTP side of the OAuth calls, shared by the three providers' route files: the authorize step
// answers a redirect, the callback the envelope new-api's console expects (message `bind`, the
// signed-in user, or `require_2fa`).
import { z } from "zod";
import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { signedInResponse } from "@/lib/auth/sign-in";
import { finishOAuth, startAuthorize } from "@/lib/accounts/oauth/flow";
import { OAUTH_MSG, type OAuthProvider } from "@/lib/accounts/oauth/providers";

/** `?aff=`: the inviter's code, carried to a sign-up at the end of the flow. */
export const affQuery = z.object({ aff: z.string().trim().max(64).optional().default("") });

/** `GET /api/oauth/{provider}/authorize?aff`: a redirect to the provider (opened in a new window by the console). */
export const authorizeRoute = (provider: OAuthProvider) =>
  route({
    auth: "optional",
    query: affQuery,
    handler: async ({ caller, query, req }) => {
      const { location, setCookie } = await startAuthorize(req, caller, provider, query.aff);
      const headers = new Headers({ location, "cache-control": "no-store" });
      if (setCookie) headers.append("set-cookie", setCookie);
      return new Response(null, { status: 302, headers });
    },
  });

/** `GET /api/oauth/{provider}?code&state`: binds to the standing session or signs in. */
export const callbackRoute = (provider: OAuthProvider) =>
  route({
    auth: "optional",
    handler: async ({ caller, req }) => {
      const outcome = await finishOAuth(req, caller, provider, new URL(req.url).searchParams);
      if (outcome.kind === "bound") return envelope({ action: "bind" }, OAUTH_MSG.bound);
      // With two-factor on, the code comes next (the login page's second step), as password sign-in answers.
      return signedInResponse(outcome.user, outcome.result);
    },
  });
