// Which database SQL_DSN names, and LOG_SQL_DSN's for the `logs` table, apart from lib/db/index.ts
// (which opens Prisma): the direct connection (lib/db/direct.ts) needs them in relay workers, which
// never load Prisma.
import { env, sqlitePath } from "@/lib/env";
import type { DbKind } from "@/lib/db/types";

export function dbKindOf(dsn: string, name = "SQL_DSN"): DbKind {
  if (/^postgres(ql)?:\/\//i.test(dsn)) return "postgresql";
  if (/^(mysql|mariadb):\/\//i.test(dsn)) return "mysql";
  if (dsn && !/^(local|file:|sqlite:)/i.test(dsn)) {
    throw new Error(`${name} must start with postgres://, mysql:// or mariadb://, got "${dsn.split(":")[0]}:…"`);
  }
  return "sqlite";
}

export const dbKind: DbKind = dbKindOf(env.SQL_DSN);

/** The process's database: the SQLite file, or SQL_DSN for a database server. */
export const dbDsn: string = dbKind === "sqlite" ? sqlitePath : env.SQL_DSN;

/**
 * The log database LOG_SQL_DSN names: a PostgreSQL or MySQL/MariaDB server, whatever SQL_DSN's
 * kind (SQLite too). Refused at start: a SQLite file (a second file on the same disk takes no load
 * off the first), and the very database SQL_DSN already names.
 */
export function logDbOf(logDsn: string, mainDsn: string): { kind: DbKind; dsn: string } | null {
  if (!logDsn) return null;
  const kind = dbKindOf(logDsn, "LOG_SQL_DSN");
  if (kind === "sqlite")
    throw new Error(
      "LOG_SQL_DSN must name a PostgreSQL or MySQL/MariaDB database (postgres://, mysql:// or mariadb://), not a SQLite file",
    );
  if (logDsn === mainDsn) throw new Error("LOG_SQL_DSN names the same database as SQL_DSN: leave it empty to keep the logs there");
  return { kind, dsn: logDsn };
}

const logDb = logDbOf(env.LOG_SQL_DSN, env.SQL_DSN);

/** True when the `logs` table lives in LOG_SQL_DSN's database instead of the main one. */
export const separateLogDb: boolean = logDb !== null;

/** The log table's database: LOG_SQL_DSN's, or the main one. */
export const logDbKind: DbKind = logDb?.kind ?? dbKind;
export const logDbDsn: string = logDb?.dsn ?? dbDsn;
