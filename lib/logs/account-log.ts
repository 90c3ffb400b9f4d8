// Writes single log rows for account events (top-up, redemption, admin, system).
import { type Db, getLogDb } from "@/lib/db";
import { separateLogDb } from "@/lib/db/kind";
import { nowSeconds } from "@/lib/db/num";
import type { LogInput } from "@/lib/logs/write";

/**
 * Writes the row with `db` (a transaction's client: the row commits with it). With LOG_SQL_DSN the
 * row goes to the log database at once instead: callers write it last in their transaction, so
 * only a failed commit can leave it without the change it records.
 */
export async function writeLog(db: Pick<Db, "log">, entry: LogInput): Promise<void> {
  const target = separateLogDb ? await getLogDb() : db;
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
