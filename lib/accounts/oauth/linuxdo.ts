// LinuxDO sign-in (connect.linux.do, an OAuth 2.0 provider): client id and secret in the system
// tab; the account is known by its numeric id.
import { z } from "zod";
import { env } from "@/lib/env";
import type { OptionValues } from "@/lib/options";
import { authorizeUrl, exchangeCode, fetchProfile, type OAuth2App } from "@/lib/accounts/oauth/oauth2";
import type { ProviderIdentity } from "@/lib/accounts/oauth/providers";

const NAME = "LinuxDO";

/** `GET /api/user`: what is read of it. */
const linuxdoUser = z.object({
  id: z.number().int().positive(),
  username: z.string().nullish(),
  name: z.string().nullish(),
});

function app(o: OptionValues): OAuth2App {
  return {
    name: NAME,
    clientId: o.LinuxDOClientId,
    clientSecret: o.LinuxDOClientSecret,
    authorizeEndpoint: `${env.LINUXDO_BASE_URL}/oauth2/authorize`,
    tokenEndpoint: `${env.LINUXDO_BASE_URL}/oauth2/token`,
    scopes: [],
  };
}

export const linuxdoAuthorizeUrl = (o: OptionValues, state: string, redirectUri: string) => authorizeUrl(app(o), state, redirectUri);

export async function linuxdoIdentity(o: OptionValues, code: string, redirectUri: string): Promise<ProviderIdentity> {
  const token = await exchangeCode(app(o), code, redirectUri);
  const user = await fetchProfile(NAME, `${env.LINUXDO_BASE_URL}/api/user`, token, linuxdoUser);
  return { id: String(user.id), displayName: user.name || user.username || "" };
}
