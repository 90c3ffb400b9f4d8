// OpenID Connect sign-in (any provider with a discovery document: Keycloak, Authentik, Google,
// Azure AD), through openid-client. The authorize request carries PKCE (S256) and a nonce, kept in
// the sign-in flow (lib/auth/flows.ts); the callback's id_token is checked in full: its signature
// against the provider's JWKS, issuer, audience, expiry and nonce. The account is its `sub`.
//
// The provider's metadata comes from the well-known document (`oidc.well_known`); the three
// endpoints new-api stores beside it (`oidc.authorization_endpoint`, `oidc.token_endpoint`,
// `oidc.user_info_endpoint`) override the discovered ones when set. Every address must be https,
// except http on this machine for a test provider.
import * as client from "openid-client";
import { ApiError } from "@/lib/errors";
import type { OptionValues } from "@/lib/options";
import { isSecureUrl } from "@/lib/options/registry";
import { processSingleton } from "@/lib/singleton";
import {
  connectFailed,
  OAUTH_MSG,
  PROVIDER_INFO,
  PROVIDER_TIMEOUT_MS,
  type ProviderIdentity,
  tokenFailed,
} from "@/lib/accounts/oauth/providers";
import { componentLogger } from "@/lib/log";

const log = componentLogger("oauth");

/** What the flow must remember between the authorize request and the callback. */
export type OidcSecrets = { verifier: string; nonce: string };

const SCOPES = "openid profile email";

/** A discovered configuration is reused this long (it holds the JWKS cache too). */
const CONFIG_TTL_MS = 10 * 60_000;

type CachedConfig = { at: number; config: client.Configuration };
const configs = processSingleton("oidcConfigs", () => new Map<string, CachedConfig>());

const nameOf = (o: OptionValues) => PROVIDER_INFO.oidc.name(o);

function checkSecure(name: string, ...addresses: (string | undefined)[]) {
  for (const address of addresses) if (address && !isSecureUrl(address)) throw new ApiError(OAUTH_MSG.notSecure(name), 400);
}

/** Fetches and checks a discovery document (a well-known URL, or an issuer to append it to). */
async function discover(name: string, wellKnown: string, clientId: string, clientSecret: string): Promise<client.Configuration> {
  checkSecure(name, wellKnown);
  const url = new URL(wellKnown);
  const insecure = url.protocol === "http:";
  try {
    return await client.discovery(url, clientId, clientSecret, undefined, {
      execute: insecure ? [client.allowInsecureRequests] : [],
      timeout: PROVIDER_TIMEOUT_MS / 1000,
    });
  } catch (error) {
    log.warn({ err: error, provider: name, url: wellKnown }, "discovery failed");
    throw connectFailed(name);
  }
}

/** The client configuration for the saved options, discovered (and cached) from the well-known document. */
async function oidcConfig(o: OptionValues): Promise<client.Configuration> {
  const name = nameOf(o);
  const overrides = {
    authorization_endpoint: o["oidc.authorization_endpoint"] || undefined,
    token_endpoint: o["oidc.token_endpoint"] || undefined,
    userinfo_endpoint: o["oidc.user_info_endpoint"] || undefined,
  };
  const key = JSON.stringify([o["oidc.well_known"], o["oidc.client_id"], o["oidc.client_secret"], overrides]);
  const cached = configs.get(key);
  if (cached && Date.now() - cached.at < CONFIG_TTL_MS) return cached.config;

  const discovered = await discover(name, o["oidc.well_known"], o["oidc.client_id"], o["oidc.client_secret"]);
  const metadata = { ...discovered.serverMetadata() };
  for (const [field, value] of Object.entries(overrides)) if (value) Object.assign(metadata, { [field]: value });
  checkSecure(name, metadata.authorization_endpoint, metadata.token_endpoint, metadata.userinfo_endpoint, metadata.jwks_uri);
  const config = new client.Configuration(metadata, o["oidc.client_id"], o["oidc.client_secret"]);
  config.timeout = PROVIDER_TIMEOUT_MS / 1000;
  // openid-client trusts an id_token from the token endpoint on the strength of TLS alone unless
  // told otherwise; its signature is checked against the JWKS too, as the token endpoint may be an
  // operator's override (or a proxy) rather than the issuer itself.
  client.enableNonRepudiationChecks(config);
  if (new URL(o["oidc.well_known"]).protocol === "http:") client.allowInsecureRequests(config);
  configs.clear(); // one provider at a time: an older configuration is never asked for again
  configs.set(key, { at: Date.now(), config });
  return config;
}

/** New PKCE verifier and nonce for one authorize request. */
export const newOidcSecrets = (): OidcSecrets => ({ verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() });

/**
 * Reads the provider's metadata, then gives the authorize page for a state, with the S256
 * challenge of the verifier and the nonce.
 */
export async function oidcAuthorizer(o: OptionValues, redirectUri: string, secrets: OidcSecrets): Promise<(state: string) => URL> {
  const config = await oidcConfig(o);
  const challenge = await client.calculatePKCECodeChallenge(secrets.verifier);
  return (state) =>
    client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: SCOPES,
      state,
      nonce: secrets.nonce,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
}

/**
 * Exchanges the callback (its query: code, state, and `iss` when the provider sends it) for
 * tokens, checks the id_token and reads the account's name from the userinfo endpoint.
 */
export async function oidcIdentity(
  o: OptionValues,
  query: URLSearchParams,
  redirectUri: string,
  checks: OidcSecrets & { state: string },
): Promise<ProviderIdentity> {
  const name = nameOf(o);
  const config = await oidcConfig(o);
  const current = new URL(redirectUri);
  for (const [k, v] of query) current.searchParams.append(k, v);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: checks.verifier,
      expectedNonce: checks.nonce,
      expectedState: checks.state,
      idTokenExpected: true,
    });
  } catch (error) {
    throw grantFailure(name, error);
  }
  const claims = tokens.claims();
  if (!claims?.sub) throw new ApiError(OAUTH_MSG.idTokenInvalid(name), 400);
  let profile: Record<string, unknown> = claims;
  if (config.serverMetadata().userinfo_endpoint) {
    try {
      // The subject must be the id_token's: a userinfo answer about someone else is refused.
      profile = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)) };
    } catch (error) {
      log.warn({ err: error, provider: name }, "userinfo failed");
    }
  }
  const display = [profile.name, profile.preferred_username, profile.nickname].find((v) => typeof v === "string" && v.trim());
  return { id: claims.sub, displayName: (display as string | undefined) ?? "" };
}

/**
 * What a failed code exchange says: the provider unreachable, the provider refusing the code (or
 * the PKCE verifier), or an id_token that fails its checks (signature, issuer, audience, expiry,
 * nonce), logged with the exact reason.
 */
function grantFailure(name: string, error: unknown): ApiError {
  const err = error as Error & { code?: string };
  log.warn({ err, provider: name }, "code exchange failed");
  if (err instanceof TypeError || err.name === "AbortError" || err.name === "TimeoutError") return connectFailed(name);
  if (err instanceof client.ResponseBodyError || err instanceof client.AuthorizationResponseError) return tokenFailed(name);
  if (err instanceof client.ClientError && /^OAUTH_(RESPONSE_IS_NOT_CONFORM|RESPONSE_IS_NOT_JSON|PARSE_ERROR)$/.test(err.code ?? "")) {
    return tokenFailed(name);
  }
  return new ApiError(OAUTH_MSG.idTokenInvalid(name), 400);
}

export type OidcEndpoints = {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  user_info_endpoint: string;
};

/** The endpoints a well-known document names, for the system tab to fill in (as new-api's settings page does). */
export async function discoverOidcEndpoints(wellKnown: string): Promise<OidcEndpoints> {
  const config = await discover("OIDC", wellKnown, "qiao", "");
  const m = config.serverMetadata();
  return {
    issuer: m.issuer,
    authorization_endpoint: m.authorization_endpoint ?? "",
    token_endpoint: m.token_endpoint ?? "",
    user_info_endpoint: m.userinfo_endpoint ?? "",
  };
}
