"use client";
// Once per page load: refresh the status object (spec §3) and re-check the stored user against
// the session, restoring it from the cookie when local storage lost it.
import { useContext, useEffect } from "react";
import { SessionHintContext } from "@/lib/client/hooks";
import { refreshSelf, refreshStatus } from "@/lib/client/session";
import { readUser } from "@/lib/client/storage";
import { pageAccess } from "@/lib/auth/route-access";
import { rememberTimeZone } from "@/lib/ui/time-zone";

export function useAppStart() {
  const hint = useContext(SessionHintContext);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per page load; later changes come from login and logout
  useEffect(() => {
    void refreshStatus();
    rememberTimeZone();

    const stored = readUser();
    if (!stored && !hint) return;
    void refreshSelf({
      redirect: pageAccess(window.location.pathname) !== "public",
      asUser: stored ? undefined : hint?.id,
    });
  }, []);
}
