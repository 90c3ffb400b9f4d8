// The plain OAuth 2.0 providers (GitHub, LinuxDO) through arctic's generic client, whose endpoints
// are arguments: they come from the environment (lib/env.ts), so an operator behind a proxy, or a
// test with a mock provider on loopback, points them elsewhere.
import { ArcticFetchError, OAuth2Client } from "arctic";
import type { z } from "zod";
import { isApiError } from "@/lib/errors";
import { connectFailed, PROVIDER_TIMEOUT_MS, tokenFailed, userInfoFailed, withinTimeout } from "@/lib/accounts/oauth/providers";
import { componentLogger } from "@/lib/log";

const log = componentLogger("oauth");

export type OAuth2App = {
  /** How messages name the provider. */
  name: string;
  clientId: string;
  clientSecret: string;
  authorizeEndpoint: string;
  tokenEndpoint: string;
  scopes: string[];
};

const client = (app: OAuth2App, redirectUri: string) => new OAuth2Client(app.clientId, app.clientSecret, redirectUri);

/** The provider's authorize page for `state`, coming back to `redirectUri`. */
export function authorizeUrl(app: OAuth2App, state: string, redirectUri: string): URL {
  return client(app, redirectUri).createAuthorizationURL(app.authorizeEndpoint, state, app.scopes);
}

/**
 * Exchanges the callback's code for an access token (client credentials in HTTP Basic, as both
 * providers accept). GitHub answers a bad code with 200 and an `error` field, so a token is
 * required whatever the status said.
 */
export async function exchangeCode(app: OAuth2App, code: string, redirectUri: string): Promise<string> {
  let data: Record<string, unknown>;
  try {
    const tokens = await withinTimeout(client(app, redirectUri).validateAuthorizationCode(app.tokenEndpoint, code, null), app.name);
    data = tokens.data as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ArcticFetchError) throw connectFailed(app.name);
    if (isApiError(error)) throw error; // the timeout
    log.warn({ err: error, provider: app.name }, "provider refused the code");
    throw tokenFailed(app.name);
  }
  if (typeof data.access_token !== "string" || data.access_token === "") {
    log.warn(
      { provider: app.name, reason: typeof data.error === "string" ? data.error : "no error given" },
      "provider answered without an access token",
    );
    throw tokenFailed(app.name);
  }
  return data.access_token;
}

/** The signed-in account from the provider's user endpoint, checked against `schema`. */
export async function fetchProfile<T>(name: string, url: string, accessToken: string, schema: z.ZodType<T>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "Qiao" },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch {
    throw connectFailed(name);
  }
  const body: unknown = res.ok ? await res.json().catch(() => null) : null;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    log.warn({ provider: name, status: res.status }, "user endpoint answered without a usable account");
    throw userInfoFailed(name);
  }
  return parsed.data;
}
