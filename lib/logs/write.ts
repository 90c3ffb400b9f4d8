// The log's types, which the console's client components read too (so this module imports
// nothing server-only). Single rows for account events are written by lib/logs/account-log.ts;
// the relay writes its consume rows in batches through its ledger (lib/billing/ledger.ts, with
// lib/logs/insert.ts).

/** Spec §4's types 1–4, and 5 for a relay request that failed (new-api later added the same). */
export const LOG_TYPE = { topup: 1, consume: 2, manage: 3, system: 4, error: 5 } as const;

export type LogInput = {
  user_id: number;
  username: string;
  type: number;
  content: string;
  quota?: number | bigint;
};
