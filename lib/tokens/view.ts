// What a token looks like through the console API. Lists show a masked key; only the owner's
// single-token read (and creation) carries the whole key.
import type { Token } from "@/lib/db/generated/sqlite/client";
import { num, nowSeconds } from "@/lib/db/num";
import { maskTokenKey } from "@/lib/tokens/keys";
import { expiryPassed, quotaSpent, TOKEN_STATUS } from "@/lib/tokens/status";

export { TOKEN_STATUS };

export const TOKEN_VIEW_SELECT = {
  id: true,
  user_id: true,
  name: true,
  key_hint: true,
  status: true,
  created_time: true,
  accessed_time: true,
  expired_time: true,
  remain_quota: true,
  unlimited_quota: true,
  model_limits_enabled: true,
  model_limits: true,
  allow_ips: true,
  used_quota: true,
  group: true,
  rpm_limit: true,
  tpm_limit: true,
  concurrency_limit: true,
  budget_quota: true,
  budget_period: true,
} as const;

export type TokenViewRow = Pick<Token, keyof typeof TOKEN_VIEW_SELECT>;
export type TokenView = ReturnType<typeof toTokenView>;

type Limits = Pick<Token, "expired_time" | "remain_quota" | "unlimited_quota">;

export const isTokenExpired = (t: Limits, now = nowSeconds()) => expiryPassed(t.expired_time, now);
export const isTokenExhausted = (t: Limits) => quotaSpent(t.unlimited_quota, t.remain_quota);

/**
 * An enabled token past its expiry or out of quota is shown as expired (3) or exhausted (4) even
 * before the relay has recorded it, so the list tells the truth.
 */
export function effectiveTokenStatus(t: Limits & { status: number }): number {
  if (t.status !== TOKEN_STATUS.enabled) return t.status;
  if (isTokenExpired(t)) return TOKEN_STATUS.expired;
  if (isTokenExhausted(t)) return TOKEN_STATUS.exhausted;
  return t.status;
}

/** `fullKey` is the 48-character key, for its owner; otherwise the key is masked. */
export function toTokenView(row: TokenViewRow, fullKey?: string) {
  const { key_hint, ...rest } = row;
  return {
    ...rest,
    key: fullKey ? `sk-${fullKey}` : maskTokenKey(key_hint),
    status: effectiveTokenStatus(row),
    remain_quota: num(row.remain_quota),
    used_quota: num(row.used_quota),
    budget_quota: num(row.budget_quota),
  };
}
