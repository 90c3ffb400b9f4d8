// GitHub sign-in: an OAuth App (client id and secret in the system tab). The account is known by
// its numeric id, which never changes; new-api stored the login before, which a user can rename,
// so that is kept as the legacy id an older binding may still hold.
import { z } from "zod";
import { env } from "@/lib/env";
import type { OptionValues } from "@/lib/options";
import { authorizeUrl, exchangeCode, fetchProfile, type OAuth2App } from "@/lib/accounts/oauth/oauth2";
import type { ProviderIdentity } from "@/lib/accounts/oauth/providers";

const NAME = "GitHub";

/** `GET /user`: what is read of it. */
const githubUser = z.object({
  id: z.number().int().positive(),
  login: z.string().min(1),
  name: z.string().nullish(),
});

function app(o: OptionValues): OAuth2App {
  return {
    name: NAME,
    clientId: o.GitHubClientId,
    clientSecret: o.GitHubClientSecret,
    authorizeEndpoint: `${env.GITHUB_OAUTH_BASE_URL}/login/oauth/authorize`,
    tokenEndpoint: `${env.GITHUB_OAUTH_BASE_URL}/login/oauth/access_token`,
    // No scope: the public profile is all a sign-in needs.
    scopes: [],
  };
}

export const githubAuthorizeUrl = (o: OptionValues, state: string, redirectUri: string) => authorizeUrl(app(o), state, redirectUri);

export async function githubIdentity(o: OptionValues, code: string, redirectUri: string): Promise<ProviderIdentity> {
  const token = await exchangeCode(app(o), code, redirectUri);
  const user = await fetchProfile(NAME, `${env.GITHUB_API_BASE_URL}/user`, token, githubUser);
  return {
    id: String(user.id),
    // A login of digits only could equal another account's numeric id: it is never matched as a legacy id.
    legacyId: /^\d+$/.test(user.login) ? undefined : user.login,
    displayName: user.name || user.login,
  };
}
