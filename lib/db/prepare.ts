// Runs once per process when the database is first opened, on the master node only: migrations,
// then the root account on an empty database, then the username keys a migration could not fill.
// (The relay recovers holds in lib/relay/memory/runtime.ts.)
import type { Db, DbKind } from "@/lib/db/types";
import { isMaster } from "@/lib/env";
import { applyMigrations } from "@/lib/db/migrate";
import { ensureRootUser } from "@/lib/users/root-account";
import { fillUsernameKeys } from "@/lib/users/username-keys";

export async function prepareDatabase(db: Db, kind: DbKind): Promise<void> {
  if (isMaster) {
    await applyMigrations(db, kind);
    await ensureRootUser(db);
    await fillUsernameKeys(db);
  }
}

/** The log database (LOG_SQL_DSN): its migrations only; no accounts live there. */
export async function prepareLogDatabase(db: Db, kind: DbKind): Promise<void> {
  if (isMaster) await applyMigrations(db, kind);
}
