// A token's status values and its expiry rule: one copy for the relay, the token list and edits.

export const TOKEN_STATUS = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;

/** `expired_time` of a token that never expires. */
export const NEVER_EXPIRES = -1;

/** True once a token's expiry (unix seconds, or NEVER_EXPIRES) has come. */
export const expiryPassed = (expiredTime: number, now: number) => expiredTime !== NEVER_EXPIRES && expiredTime <= now;

/**
 * A limited token with nothing left to spend: the token list shows it 已耗尽 and the relay refuses
 * it (该令牌额度已用尽). One predicate for both, applied to the remaining quota as people see it
 * (remain_quota plus the unused part of its open leases, lib/billing/visible.ts).
 */
export const quotaSpent = (unlimited: boolean, remain: bigint) => !unlimited && remain <= 0n;
