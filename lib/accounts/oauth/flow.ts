// Signing in (or binding) through GitHub, LinuxDO or OpenID Connect.
//
// 1. A state: `GET /api/oauth/state?aff` (new-api's call; the caller builds the authorize URL), or
//    `GET /api/oauth/{provider}/authorize?aff`, which also builds the authorize URL (endpoints from
//    the environment, PKCE and a nonce for OIDC) and redirects to it. The state is a single-use
//    flow (lib/auth/flows.ts) of 10 minutes, bound to this browser's flow cookie, holding the aff
//    code and who was signed in when it started.
// 2. The provider sends the browser to the console page `/oauth/{provider}`, which calls
//    `GET /api/oauth/{provider}?code&state`: the flow is taken (once, from this browser only), the
//    code exchanged, and then
//    - with a standing session: the provider's account is bound to it (message `bind`);
//    - else: the bound account signs in (a disabled one is refused), or a new account is made
//      when registration is on, with the aff inviter's rewards (lib/users/create.ts). Every
//      sign-in ends in completeSignIn, which may ask for the second factor first.
import { BANNED_MESSAGE, type Caller } from "@/lib/auth/authenticate";
import { browserBinding, browserOf, startFlow, takeFlow } from "@/lib/auth/flows";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { isActiveUser } from "@/lib/auth/roles";
import { completeSignIn, type SignInResult } from "@/lib/auth/sign-in";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError, forbidden, notFound } from "@/lib/errors";
import { requestIp } from "@/lib/net/client-ip";
import { getOptions, type OptionValues } from "@/lib/options";
import { visibleQuota } from "@/lib/billing/visible";
import { createProviderUser } from "@/lib/users/create";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";
import { bindAccount, findBoundAccount } from "@/lib/accounts/bindings";
import { githubAuthorizeUrl, githubIdentity } from "@/lib/accounts/oauth/github";
import { linuxdoAuthorizeUrl, linuxdoIdentity } from "@/lib/accounts/oauth/linuxdo";
import { newOidcSecrets, type OidcSecrets, oidcAuthorizer, oidcIdentity } from "@/lib/accounts/oauth/oidc";
import {
  notEnabled,
  OAUTH_MSG,
  type OAuthProvider,
  PROVIDER_INFO,
  type ProviderIdentity,
  providerErrorMessage,
  redirectUri,
} from "@/lib/accounts/oauth/providers";

export const OAUTH_FLOW = "oauth";
/** How long an authorize round trip may take. */
export const OAUTH_STATE_SECONDS = 600;

/** What the flow keeps: the aff code, the provider when it was chosen at the start, OIDC's PKCE verifier and nonce. */
type OAuthFlowData = { aff?: string; provider?: OAuthProvider } & Partial<OidcSecrets>;

type StartedState = { state: string; setCookie: string | null };

/** Every step counts against the sensitive-call limit of the client address (CRITICAL_RATE_LIMIT). */
const limitCalls = (req: Request) =>
  enforceRateLimit(`oauth:ip:${requestIp(req.headers)}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);

async function startState(req: Request, caller: Caller | null, data: OAuthFlowData): Promise<StartedState> {
  const binding = browserBinding(req);
  const state = await startFlow(OAUTH_FLOW, {
    ttlSeconds: OAUTH_STATE_SECONDS,
    browser: binding.browser,
    userId: caller?.id ?? 0,
    data,
  });
  return { state, setCookie: binding.setCookie };
}

/** `GET /api/oauth/state?aff`: a state for GitHub or LinuxDO, the authorize URL built by the caller. */
export async function issueState(req: Request, caller: Caller | null, aff: string): Promise<StartedState> {
  await limitCalls(req);
  return startState(req, caller, { aff });
}

/**
 * `GET /api/oauth/{provider}/authorize?aff`: where to send the browser. The provider's authorize
 * page with a new state; or, when the provider is off or cannot be reached, the console's callback
 * page with an OAuth error code, where the callback call says why in words.
 */
export async function startAuthorize(
  req: Request,
  caller: Caller | null,
  provider: OAuthProvider,
  aff: string,
): Promise<{ location: string; setCookie: string | null }> {
  await limitCalls(req);
  const o = await getOptions();
  const back = redirectUri(o, req, provider);
  // Off: the callback page's call says so (it checks the switch first).
  if (!PROVIDER_INFO[provider].enabled(o)) return { location: back, setCookie: null };
  const secrets = newOidcSecrets(); // kept by OIDC's flows only
  let build: (state: string) => URL;
  try {
    build = await authorizer(o, provider, back, secrets);
  } catch {
    // OIDC's discovery document could not be read; no state is spent on it.
    return { location: `${back}?error=temporarily_unavailable`, setCookie: null };
  }
  const { state, setCookie } = await startState(req, caller, provider === "oidc" ? { aff, provider, ...secrets } : { aff, provider });
  return { location: build(state).toString(), setCookie };
}

/** Builds the provider's authorize URL for a state (OIDC's metadata is read first, before a state exists). */
async function authorizer(o: OptionValues, provider: OAuthProvider, back: string, secrets: OidcSecrets): Promise<(state: string) => URL> {
  switch (provider) {
    case "github":
      return (state) => githubAuthorizeUrl(o, state, back);
    case "linuxdo":
      return (state) => linuxdoAuthorizeUrl(o, state, back);
    case "oidc":
      return oidcAuthorizer(o, back, secrets);
  }
}

export type OAuthOutcome = { kind: "bound" } | { kind: "signed_in"; user: UserView; result: SignInResult };

/** `GET /api/oauth/{provider}?code&state`: binds or signs in (see the file comment). */
export async function finishOAuth(
  req: Request,
  caller: Caller | null,
  provider: OAuthProvider,
  query: URLSearchParams,
): Promise<OAuthOutcome> {
  await limitCalls(req);
  const o = await getOptions();
  const info = PROVIDER_INFO[provider];
  const name = info.name(o);
  if (!info.enabled(o)) throw notEnabled(name);
  // The state is taken before anything else is looked at, so it is spent even by a refused callback.
  const state = query.get("state") ?? "";
  const flow = await takeFlow(OAUTH_FLOW, state, browserOf(req));
  const error = query.get("error");
  if (error) throw new ApiError(providerErrorMessage(error, name), 400);
  const data = (flow?.data ?? {}) as OAuthFlowData;
  // A state from /api/oauth/state serves GitHub or LinuxDO; an authorize step's serves its own provider only.
  const fits = data.provider ? data.provider === provider : provider !== "oidc";
  if (!flow || !fits) throw forbidden(OAUTH_MSG.stateInvalid);
  if (flow.userId !== 0 && flow.userId !== caller?.id) throw forbidden(OAUTH_MSG.sessionChanged);
  const code = query.get("code");
  if (!code) throw new ApiError(OAUTH_MSG.missingCode, 400);

  const back = redirectUri(o, req, provider);
  const identity = await identify(o, provider, code, query, back, { state, verifier: data.verifier ?? "", nonce: data.nonce ?? "" });
  if (caller) {
    await bindAccount(caller.id, info.column, identity.id, identity.legacyId, new ApiError(OAUTH_MSG.alreadyBound(name), 400));
    return { kind: "bound" };
  }
  const userId = await accountFor(provider, identity, data.aff ?? "");
  return signIn(req, userId, provider);
}

function identify(
  o: OptionValues,
  provider: OAuthProvider,
  code: string,
  query: URLSearchParams,
  back: string,
  checks: OidcSecrets & { state: string },
): Promise<ProviderIdentity> {
  switch (provider) {
    case "github":
      return githubIdentity(o, code, back);
    case "linuxdo":
      return linuxdoIdentity(o, code, back);
    case "oidc":
      return oidcIdentity(o, query, back, checks);
  }
}

/**
 * The account the provider's account signs in to: the one bound to its id; for GitHub, one bound
 * to its login by new-api (moved to the numeric id now); else a new account.
 */
async function accountFor(provider: OAuthProvider, identity: ProviderIdentity, aff: string): Promise<number> {
  const { column, prefix } = PROVIDER_INFO[provider];
  let bound = await findBoundAccount(column, [identity.id]);
  if (!bound && identity.legacyId) {
    bound = await findBoundAccount(column, [identity.legacyId]);
    if (bound && !bound.deleted) {
      const db = await getDb();
      await db.user.updateMany({ where: { id: bound.id, [column]: identity.legacyId }, data: { [column]: identity.id } });
    }
  }
  if (bound?.deleted) throw forbidden(OAUTH_MSG.userDeleted);
  if (bound) return bound.id;
  const created = await createProviderUser({
    prefix,
    displayName: identity.displayName,
    aff_code: aff || null,
    binding: { column, value: identity.id },
  });
  return created.id;
}

async function signIn(req: Request, userId: number, provider: OAuthProvider): Promise<OAuthOutcome> {
  const db = await getDb();
  const user = await db.user.findFirst({ where: { id: userId, deleted_at: null }, select: { ...USER_PUBLIC_SELECT, auth_version: true } });
  if (!user) throw notFound(OAUTH_MSG.userDeleted);
  if (!isActiveUser(user)) throw forbidden(BANNED_MESSAGE);
  const result = await completeSignIn(
    req,
    { id: user.id, username: user.username, role: user.role, auth_version: user.auth_version },
    provider,
  );
  return { kind: "signed_in", user: toUserView(await visibleQuota(user)), result };
}
