// How the console writes numbers, quota and times (spec §9): one copy for every page, pure so the
// server render and the browser agree and the rules are unit-tested.
import { OPTION_REGISTRY } from "@/lib/options/registry";

/** What decides how quota reads: QuotaPerUnit units per dollar, shown as dollars or as units. */
export type QuotaDisplay = { quotaPerUnit: number; inCurrency: boolean };

/** Until the server's display options arrive: the options' defaults. */
export const DEFAULT_QUOTA_DISPLAY: QuotaDisplay = {
  quotaPerUnit: OPTION_REGISTRY.QuotaPerUnit.default,
  inCurrency: OPTION_REGISTRY.DisplayInCurrencyEnabled.default,
};

const trimZeros = (s: string) => (s.includes(".") ? s.replace(/\.?0+$/, "") : s);

/** 12 345 → 12.3k, 2 500 000 → 2.5M, 3e9 → 3B; below 10 000 the number itself. */
export function formatCompact(value: number | bigint): string {
  const n = Number(value);
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${trimZeros((n / 1e9).toFixed(1))}B`;
  if (abs >= 1e6) return `${trimZeros((n / 1e6).toFixed(1))}M`;
  if (abs >= 1e4) return `${trimZeros((n / 1e3).toFixed(1))}k`;
  return String(Math.trunc(n) === n ? n : trimZeros(n.toFixed(2)));
}

/** Quota as the user reads it: `$1.23` when the site shows currency, else the compact unit count. */
export function formatQuota(quota: number | bigint, display: QuotaDisplay, digits = 2): string {
  if (!display.inCurrency) return formatCompact(quota);
  const dollars = Number(quota) / (display.quotaPerUnit || 1);
  const sign = dollars < 0 ? "-" : "";
  const abs = Math.abs(dollars);
  const fixed = abs.toFixed(digits);
  // A non-zero amount never reads as $0.00: show enough digits to be true.
  if (abs !== 0 && Number(fixed) === 0) return `${sign}$${trimZeros(abs.toPrecision(2))}`;
  return `${sign}$${fixed}`;
}

/** Dollars → quota units (the form presets 1$ … 1000$). */
export const dollarsToQuota = (dollars: number, display: QuotaDisplay) => Math.round(dollars * display.quotaPerUnit);

/** "2026-11-23 22:40:17" in the given IANA time zone (the viewer's). */
export function formatTimestamp(seconds: number, timeZone?: string): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return "";
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(seconds * 1000));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "00";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")}`;
}

/** A time zone name the runtime accepts, else undefined (the runtime's own zone). */
export function validTimeZone(name: string | undefined | null): string | undefined {
  if (!name) return undefined;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return name;
  } catch {
    return undefined;
  }
}
