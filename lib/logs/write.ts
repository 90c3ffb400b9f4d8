// Writes single log rows for account events (top-up, admin, system). The relay writes its
// consume rows in batches through its ledger (lib/billing/ledger.ts, with lib/logs/insert.ts).
import type { Db } from "@/lib/db";
import { separateLogDb } from "@/lib/db/kind";
import { nowSeconds } from "@/lib/db/num";

/** Spec §4's types 1–4, and 5 for a relay request that failed (new-api later added the same). */
export const LOG_TYPE = { topup: 1, consume: 2, manage: 3, system: 4, error: 5 } as const;

export type LogInput = {
  user_id: number;
  username: string;
  type: number;
  content: string;
  quota?: number | bigint;
};

/**
 * Writes the row with `db` (a transaction's client: the row commits with it). With LOG_SQL_DSN the
 * row goes to the log database at once instead: callers write it last in their transaction, so
 * only a failed commit can leave it without the change it records.
 */
export async function writeLog(db: Pick<Db, "log">, entry: LogInput): Promise<void> {
  const target = separateLogDb ? await (await import("@/lib/db")).getLogDb() : db;
  await target.log.create({
    data: {
      user_id: entry.user_id,
      username: entry.username,
      type: entry.type,
      content: entry.content,
      quota: BigInt(entry.quota ?? 0),
      created_at: nowSeconds(),
    },
  });
}
