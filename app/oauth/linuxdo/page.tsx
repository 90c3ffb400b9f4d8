import { OAuthCallbackPage } from "@/components/auth/oauth-callback-page";
import type { SearchParams } from "@/lib/ui/list-params";

export default function Page({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <OAuthCallbackPage provider="linuxdo" searchParams={searchParams} />;
}
