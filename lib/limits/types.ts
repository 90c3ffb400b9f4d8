// The shapes of request limits (issue 26), shared by the option registry, the token form, the
// relay's limiter and the console. Client-safe: no server imports.

/** Limits per sliding minute and at once; an absent or 0 field is no limit. */
export type LimitSet = { rpm?: number; tpm?: number; concurrency?: number };

/** The limit kinds of a LimitSet, in the order the console shows them. */
export const LIMIT_KINDS = ["rpm", "tpm", "concurrency"] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/** A key's budget starts afresh at the start of each period, in the server's time zone (weeks start on Monday). */
export const BUDGET_PERIODS = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
export const BUDGET_PERIOD_LABELS: Readonly<Record<BudgetPeriod, string>> = { day: "每天", week: "每周", month: "每月" };

/** The token columns that hold a key's own limits (0 / "" = none). */
export type KeyLimitColumns = {
  id: number;
  rpm_limit: number;
  tpm_limit: number;
  concurrency_limit: number;
  budget_quota: bigint;
  budget_period: string;
};

/**
 * A key's use now against its own limits, for the console (lib/limits/usage.ts `keyLimitUsage`).
 * A null field: the key has no such limit. `resetMs`: until the window has room for the next
 * request (rpm) or is full again (tpm), as OpenAI's x-ratelimit-reset-* say it.
 */
export type KeyLimitUsage = {
  rpm: { limit: number; used: number; resetMs: number } | null;
  tpm: { limit: number; used: number; resetMs: number } | null;
  concurrency: { limit: number; used: number } | null;
  /** Quota units as decimal strings (they may pass 2^53); resetAt: unix seconds when the period ends. */
  budget: { limit: string; used: string; period: BudgetPeriod; resetAt: number } | null;
};

/** Within one priority level of a group, how the relay chooses among channels (ChannelRoutingStrategy). */
export const ROUTING_STRATEGIES = ["weighted", "least_inflight", "lowest_latency"] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];
