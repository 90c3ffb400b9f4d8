// Creates the one Prisma client of this process, for the database SQL_DSN names: the console's
// (a relay worker never opens it; its queries go through lib/db/direct.ts). The client is kept on
// globalThis so that Next's bundles and the server entry, which load this module separately,
// share one connection pool.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { env, sqlitePath } from "@/lib/env";
import { dbKind, logDbDsn, logDbKind, separateLogDb } from "@/lib/db/kind";
import { gateSqliteFactory } from "@/lib/db/sqlite-gate";
import type { Db, DbKind } from "@/lib/db/types";
import { processSingleton } from "@/lib/singleton";

export type { Db, DbKind };
export { dbKind, dbKindOf, separateLogDb } from "@/lib/db/kind";

/** Opens a client for a database. Tests call it directly to reach throwaway databases. */
export async function openDb(kind: DbKind, dsn: string): Promise<Db> {
  if (kind === "postgresql") {
    const [{ PrismaPg }, { PrismaClient: PgClient }] = await Promise.all([
      import("@prisma/adapter-pg"),
      import("@/lib/db/generated/postgresql/client"),
    ]);
    const adapter = new PrismaPg({ connectionString: dsn, max: env.SQL_MAX_OPEN_CONNS });
    return new PgClient({ adapter }) as unknown as Db;
  }
  if (kind === "mysql") {
    const [{ PrismaMariaDb }, { PrismaClient: MyClient }] = await Promise.all([
      import("@prisma/adapter-mariadb"),
      import("@/lib/db/generated/mysql/client"),
    ]);
    const url = new URL(dsn.replace(/^mysql:/i, "mariadb:"));
    const adapter = new PrismaMariaDb({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.replace(/^\//, ""),
      connectionLimit: env.SQL_MAX_OPEN_CONNS,
      allowPublicKeyRetrieval: true,
    });
    return new MyClient({ adapter }) as unknown as Db;
  }
  const [{ PrismaBetterSqlite3 }, { PrismaClient }] = await Promise.all([
    import("@prisma/adapter-better-sqlite3"),
    import("@/lib/db/generated/sqlite/client"),
  ]);
  const file = dsn || sqlitePath;
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const adapter = gateSqliteFactory(new PrismaBetterSqlite3({ url: file, timeout: 5000 }, { timestampFormat: "unixepoch-ms" }));
  const client = new PrismaClient({ adapter });
  // WAL lets readers run beside the single writer; NORMAL sync is durable across process crashes.
  for (const pragma of ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"]) {
    await client.$queryRawUnsafe(`PRAGMA ${pragma}`);
  }
  return client;
}

const slot = processSingleton<{ db?: Promise<Db>; logDb?: Promise<Db> }>("db", () => ({}));

/** The process's client, opened (and migrated) on first use, with the log database when it is separate. */
export function getDb(): Promise<Db> {
  if (!slot.db) {
    slot.db = (async () => {
      const db = await openDb(dbKind, dbKind === "sqlite" ? "" : env.SQL_DSN);
      const { prepareDatabase } = await import("@/lib/db/prepare");
      await prepareDatabase(db, dbKind);
      // A log database that cannot be reached or migrated stops the start, not the first log read.
      if (separateLogDb) await getLogDb();
      return db;
    })();
    slot.db.catch(() => {
      slot.db = undefined;
    });
  }
  return slot.db;
}

/**
 * The client for the `logs` table: LOG_SQL_DSN's database (opened and migrated on first use), or
 * getDb()'s when LOG_SQL_DSN is empty. Only `log` is used on it: the log database carries the same
 * migrations as the main one (its other tables stay empty), so its `logs` table and indexes are the
 * schema's, whichever kind each database is.
 */
export function getLogDb(): Promise<Db> {
  if (!separateLogDb) return getDb();
  if (!slot.logDb) {
    slot.logDb = (async () => {
      const db = await openDb(logDbKind, logDbDsn);
      const { prepareLogDatabase } = await import("@/lib/db/prepare");
      await prepareLogDatabase(db, logDbKind);
      return db;
    })();
    slot.logDb.catch(() => {
      slot.logDb = undefined;
    });
  }
  return slot.logDb;
}
