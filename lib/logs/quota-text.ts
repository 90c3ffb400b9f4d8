// How log rows write an amount of quota: new-api's LogQuota, "＄0.002000 额度" while the console
// shows currency, else "1000 点额度".
import { getOptions, type OptionValues } from "@/lib/options";

type Display = Pick<OptionValues, "DisplayInCurrencyEnabled" | "QuotaPerUnit">;

/** With the options already in hand (inside a transaction, say). */
export function quotaForLog(quota: bigint | number, { DisplayInCurrencyEnabled, QuotaPerUnit }: Display): string {
  return DisplayInCurrencyEnabled ? `＄${(Number(quota) / QuotaPerUnit).toFixed(6)} 额度` : `${quota} 点额度`;
}

export async function formatQuotaForLog(quota: bigint | number): Promise<string> {
  return quotaForLog(quota, await getOptions());
}
