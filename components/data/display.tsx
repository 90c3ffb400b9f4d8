"use client";
// Quota and time as every page shows them. The root layout passes the site's display options and
// the viewer's time zone (from the `tz` cookie the browser sets), so the server render already
// reads right; after hydration the browser's own zone wins.
import { createContext, useContext } from "react";
import { useHydrated } from "@/lib/client/hooks";
import { DEFAULT_QUOTA_DISPLAY, formatQuota, formatTimestamp, type QuotaDisplay } from "@/lib/ui/format";

export type DisplaySettings = QuotaDisplay & { timeZone?: string };

const DisplayContext = createContext<DisplaySettings>(DEFAULT_QUOTA_DISPLAY);

export function DisplayProvider({ value, children }: { value: DisplaySettings; children: React.ReactNode }) {
  return <DisplayContext.Provider value={value}>{children}</DisplayContext.Provider>;
}

/** QuotaPerUnit and DisplayInCurrencyEnabled as the server last rendered them. */
export function useQuotaDisplay(): QuotaDisplay {
  return useContext(DisplayContext);
}

/** The viewer's time zone: the cookie's during hydration, the browser's afterwards. */
export function useTimeZone(): string | undefined {
  const { timeZone } = useContext(DisplayContext);
  return useHydrated() ? Intl.DateTimeFormat().resolvedOptions().timeZone : timeZone;
}

export function QuotaText({ quota, digits }: { quota: number | bigint | string; digits?: number }) {
  const display = useQuotaDisplay();
  return <>{formatQuota(typeof quota === "string" ? Number(quota) : quota, display, digits)}</>;
}

/** A Unix time in seconds, in the viewer's zone; `empty` for 0 / -1. */
export function TimeText({ seconds, empty = "" }: { seconds: number; empty?: string }) {
  const timeZone = useTimeZone();
  return <>{formatTimestamp(seconds, timeZone) || empty}</>;
}
