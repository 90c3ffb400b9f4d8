// The 限制 popover of the token list, pure so it is unit-tested: which limits a key has (from the
// list's row, to decide whether there is anything to open) and each one's use read as used / limit.
import { BUDGET_PERIOD_LABELS, type KeyLimitUsage } from "@/lib/limits/types";
import { formatCompact, formatQuota, type QuotaDisplay } from "@/lib/ui/format";

type LimitColumns = { rpm_limit: number; tpm_limit: number; concurrency_limit: number; budget_quota: number; budget_period: string };

/** How many of its own limits a key has (a budget counts once it has a period too). */
export function countKeyLimits(t: LimitColumns): number {
  return [t.rpm_limit > 0, t.tpm_limit > 0, t.concurrency_limit > 0, t.budget_quota > 0 && t.budget_period !== ""].filter(Boolean).length;
}

export type LimitRow = {
  label: string;
  /** "3 / 10", "$1.20 / $10.00". */
  text: string;
  /** 0–100, for the progress bar. */
  percent: number;
  /** The budget's period and when it starts afresh (unix seconds). */
  period?: { label: string; resetAt: number };
  /** Seconds until the minute window has room again, when it is in use. */
  resetSeconds?: number;
};

const percentOf = (used: number, limit: number) => (limit > 0 ? Math.min(100, Math.max(0, (used / limit) * 100)) : 0);
const seconds = (ms: number) => (ms > 0 ? Math.ceil(ms / 1000) : undefined);

/** The rows the popover lists, in LIMIT_KINDS order and then the budget; none for an absent limit. */
export function limitRows(usage: KeyLimitUsage, display: QuotaDisplay): LimitRow[] {
  const rows: LimitRow[] = [];
  const { rpm, tpm, concurrency, budget } = usage;
  if (rpm)
    rows.push({
      label: "每分钟请求数",
      text: `${rpm.used} / ${rpm.limit}`,
      percent: percentOf(rpm.used, rpm.limit),
      resetSeconds: seconds(rpm.resetMs),
    });
  if (tpm) {
    const text = `${formatCompact(tpm.used)} / ${formatCompact(tpm.limit)}`;
    rows.push({ label: "每分钟 token 数", text, percent: percentOf(tpm.used, tpm.limit), resetSeconds: seconds(tpm.resetMs) });
  }
  if (concurrency)
    rows.push({
      label: "并发请求数",
      text: `${concurrency.used} / ${concurrency.limit}`,
      percent: percentOf(concurrency.used, concurrency.limit),
    });
  if (budget) {
    const used = Number(budget.used);
    const limit = Number(budget.limit);
    rows.push({
      label: "周期预算",
      text: `${formatQuota(used, display)} / ${formatQuota(limit, display)}`,
      percent: percentOf(used, limit),
      period: { label: BUDGET_PERIOD_LABELS[budget.period], resetAt: budget.resetAt },
    });
  }
  return rows;
}

/** The bar's colour: near the limit orange, at it red. */
export const limitColor = (percent: number) => (percent >= 100 ? "red" : percent >= 80 ? "orange" : "blue");
