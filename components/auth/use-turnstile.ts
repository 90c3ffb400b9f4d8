"use client";
// The Turnstile state of a form: whether the check is on, its token, and the gate every submit
// passes first ('请稍后几秒重试，Turnstile 正在检查用户环境！' until a token arrives).
import { useCallback, useState } from "react";
import { showInfo } from "@/lib/client/notify";
import type { SiteStatus } from "@/lib/ui/site-status";

export const TURNSTILE_WAIT = "请稍后几秒重试，Turnstile 正在检查用户环境！";

export function useTurnstile(status: SiteStatus | null) {
  const enabled = !!status?.turnstile_check;
  const [token, setToken] = useState("");
  const onToken = useCallback((t: string) => setToken(t), []);
  /** false (after telling the user to wait) while the check is on and has not finished. */
  const ready = useCallback(() => {
    if (enabled && !token) {
      showInfo(TURNSTILE_WAIT);
      return false;
    }
    return true;
  }, [enabled, token]);
  return { enabled, siteKey: status?.turnstile_site_key ?? "", token, onToken, ready };
}
