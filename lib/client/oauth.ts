// The browser side of GitHub, LinuxDO and OIDC sign-in and binding. The provider's page opens in a
// new window (spec §7 OAuth and bindings), through the server's authorize step, which starts the
// state and redirects; that window comes back to the console's callback page. The callback page
// tells the console's other windows what happened (a BroadcastChannel, same origin only), so the
// window that opened it can follow: the login page goes on to /token, the bindings card reloads.
// Browser-only.
import { useEffect } from "react";
import { readAff } from "@/lib/client/storage";

export type OAuthProviderName = "github" | "linuxdo" | "oidc";

/** Opens the provider's authorize page in a new window (no `opener`: the provider's page cannot reach back). */
export function openAuthorize(provider: OAuthProviderName): void {
  window.open(`/api/oauth/${provider}/authorize?aff=${encodeURIComponent(readAff())}`, "_blank", "noopener");
}

export type OAuthEvent = { kind: "signed_in" | "bound"; provider: OAuthProviderName };

const CHANNEL = "qiao-oauth";

/** Tells the console's other windows that a callback finished. */
export function announceOAuth(event: OAuthEvent): void {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(event);
  channel.close();
}

/** Calls `onEvent` when a callback in another window of the console finishes. */
export function useOAuthEvents(onEvent: (event: OAuthEvent) => void): void {
  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = (e: MessageEvent<OAuthEvent>) => {
      if (e.data && (e.data.kind === "signed_in" || e.data.kind === "bound")) onEvent(e.data);
    };
    return () => channel.close();
  }, [onEvent]);
}
