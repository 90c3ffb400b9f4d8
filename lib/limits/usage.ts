// Placeholder until the limits branch merges: replaced by it. Every limit the key has, with used 0,
// so the console's API, drawer and popover build and are tested against the KeyLimitUsage contract.
import type { BudgetPeriod, KeyLimitColumns, KeyLimitUsage } from "@/lib/limits/types";

/** Unix seconds when the current period ends, in the server's time zone (weeks start on Monday). */
function periodEnd(period: BudgetPeriod, now = new Date()): number {
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (period === "week") end.setDate(end.getDate() + ((8 - end.getDay()) % 7));
  if (period === "month") end.setFullYear(now.getFullYear(), now.getMonth() + 1, 1);
  return Math.floor(end.getTime() / 1000);
}

export async function keyLimitUsage(token: KeyLimitColumns): Promise<KeyLimitUsage> {
  const period = token.budget_period as BudgetPeriod;
  return {
    rpm: token.rpm_limit > 0 ? { limit: token.rpm_limit, used: 0, resetMs: 0 } : null,
    tpm: token.tpm_limit > 0 ? { limit: token.tpm_limit, used: 0, resetMs: 0 } : null,
    concurrency: token.concurrency_limit > 0 ? { limit: token.concurrency_limit, used: 0 } : null,
    budget: token.budget_quota > 0n && period ? { limit: String(token.budget_quota), used: "0", period, resetAt: periodEnd(period) } : null,
  };
}
