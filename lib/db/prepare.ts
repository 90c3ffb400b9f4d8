// Runs once per process when the database is first opened: migrations (master node only),
// the root account on an empty database, and recovery of relay holds left by a crash.
import type { Db, DbKind } from "@/lib/db/types";
import { isMaster } from "@/lib/env";
import { applyMigrations } from "@/lib/db/migrate";
import { ensureRootUser } from "@/lib/users/bootstrap";

const hooks: Array<(db: Db) => Promise<void>> = [];

/** Lets later modules (the relay's hold recovery) run once after migrations. */
export function onDatabaseReady(hook: (db: Db) => Promise<void>) {
  hooks.push(hook);
}

export async function prepareDatabase(db: Db, kind: DbKind): Promise<void> {
  if (isMaster) {
    await applyMigrations(db, kind);
    await ensureRootUser(db);
  }
  for (const hook of hooks) await hook(db);
}
