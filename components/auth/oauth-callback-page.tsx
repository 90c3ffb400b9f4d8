// The server half of the callback pages: passes the query the provider sent on, as it came.
import { OAuthCallback } from "@/components/auth/oauth-callback";
import type { OAuthProviderName } from "@/lib/client/oauth";
import type { SearchParams } from "@/lib/ui/list-params";

export async function OAuthCallbackPage({ provider, searchParams }: { provider: OAuthProviderName; searchParams: Promise<SearchParams> }) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(await searchParams)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(key, v);
  }
  return <OAuthCallback provider={provider} query={query.toString()} />;
}
