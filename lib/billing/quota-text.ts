// How quota reads in log rows and server messages (new-api's LogQuota): "＄0.002000 额度" while the
// console shows currency, else "1000 点额度". Pure: the caller passes the two options.
import type { OptionValues } from "@/lib/options";

export type QuotaTextOptions = Pick<OptionValues, "DisplayInCurrencyEnabled" | "QuotaPerUnit">;

export function quotaText(quota: bigint | number, o: QuotaTextOptions): string {
  return o.DisplayInCurrencyEnabled ? `＄${(Number(quota) / o.QuotaPerUnit).toFixed(6)} 额度` : `${quota} 点额度`;
}
