// Which database SQL_DSN names, apart from lib/db/index.ts (which opens Prisma): the direct
// connection (lib/db/direct.ts) needs it in relay workers, which never load Prisma.
import { env, sqlitePath } from "@/lib/env";
import type { DbKind } from "@/lib/db/types";

export function dbKindOf(dsn: string): DbKind {
  if (/^postgres(ql)?:\/\//i.test(dsn)) return "postgresql";
  if (/^(mysql|mariadb):\/\//i.test(dsn)) return "mysql";
  if (dsn && !/^(local|file:|sqlite:)/i.test(dsn)) {
    throw new Error(`SQL_DSN must start with postgres://, mysql:// or mariadb://, got "${dsn.split(":")[0]}:…"`);
  }
  return "sqlite";
}

export const dbKind: DbKind = dbKindOf(env.SQL_DSN);

/** The process's database: the SQLite file, or SQL_DSN for a database server. */
export const dbDsn: string = dbKind === "sqlite" ? sqlitePath : env.SQL_DSN;
