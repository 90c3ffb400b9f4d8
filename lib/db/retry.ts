// Prisma transactions that lost a race to another writer and may simply run again: the credit
// paths (redemption codes, payment orders) wrap their one conditional transaction in this.
/** A deadlock or serialization failure: the transaction was rolled back and may simply run again. */
export function isWriteConflict(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    // PostgreSQL's deadlock and serialization failure; MySQL's deadlock and lock wait timeout.
    const code = String(e.code ?? "");
    if (code === "40P01" || code === "40001" || e.errno === 1213 || e.errno === 1205) return true;
    if (/deadlock|could not serialize/i.test(String(e.message ?? ""))) return true;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return false;
}

/** Waits behind other writers (SQLite has one at a time; several instances may queue). */
export const WRITE_TX = { maxWait: 30_000, timeout: 30_000 } as const;

/**
 * SQLite's BUSY without waiting: Prisma's SQLite adapter opens transactions DEFERRED and runs the
 * process's other queries on the same connection meanwhile, so a read can turn the transaction
 * into a read snapshot that another process's commit makes stale; the upgrade to a write then
 * fails at once instead of waiting. Nothing was written (the transaction rolled back).
 */
export function isSqliteBusy(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    if (/^SQLITE_BUSY/.test(String(e.originalCode ?? e.code ?? ""))) return true;
    const meta = e.meta as Record<string, unknown> | undefined;
    e = (meta?.driverAdapterError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}

/** Runs a transaction again (a few times, after a short random pause) when it lost a write conflict. */
export async function retryConflicting<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= 8 || !(isWriteConflict(error) || isSqliteBusy(error))) throw error;
      await new Promise((r) => setTimeout(r, attempt * (5 + Math.random() * 20)));
    }
  }
}
