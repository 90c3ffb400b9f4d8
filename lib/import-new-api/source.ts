// The install being imported: a new-api or one-api database (SQLite file, MySQL, PostgreSQL), read
// and never written. Its tables are read by column presence, so one reader serves one-api,
// new-api v0.3.x and the latest new-api; `flavor` names which one the columns say it is.
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import type { Row } from "@/lib/db/direct";
import type { DbKind } from "@/lib/db/types";

export type SourceDsn = { kind: DbKind; dsn: string };

export const SOURCE_MSG = {
  empty: "请给出源数据库：SQLite 文件路径，或 mysql://、postgres:// 开头的连接串",
  noFile: (file: string) => `源数据库文件不存在：${file}`,
  notNewApi: "源数据库不是 new-api 或 one-api 的数据库（缺少 users 或 tokens 表）",
} as const;

/**
 * What an operator pastes: new-api's SQL_DSN (`user:pass@tcp(host:port)/db?…` for MySQL, a
 * postgres:// URL) or its SQLite file path (SQLITE_PATH, `one-api.db` by default), or a
 * mysql:// URL. Answers the kind and a DSN our drivers take.
 */
export function parseSourceDsn(text: string): SourceDsn {
  const dsn = text.trim();
  if (!dsn) throw new Error(SOURCE_MSG.empty);
  if (/^postgres(ql)?:\/\//i.test(dsn)) return { kind: "postgresql", dsn };
  if (/^(mysql|mariadb):\/\//i.test(dsn)) return { kind: "mysql", dsn: dsn.replace(/^mariadb:/i, "mysql:") };
  // Go's MySQL driver form: [user[:password]@]tcp(host:port)/dbname[?params]
  const go = /^(?:([^:@]*)(?::([^@]*))?@)?tcp\(([^)]*)\)\/([^?]*)/.exec(dsn);
  if (go) {
    const [, user = "", password = "", address = "", database = ""] = go;
    const auth = user ? `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ""}@` : "";
    return { kind: "mysql", dsn: `mysql://${auth}${address || "127.0.0.1:3306"}/${database}` };
  }
  const file = dsn.replace(/^(sqlite|file):(\/\/)?/i, "").replace(/\?.*$/, "");
  if (!existsSync(file)) throw new Error(SOURCE_MSG.noFile(file));
  return { kind: "sqlite", dsn: file };
}

/**
 * Names an install by where it is, whatever the spelling (Go's DSN or a URL, another user, other
 * parameters, a relative path): the key of its rows in import_map. No password goes into it.
 */
export function sourceId({ kind, dsn }: SourceDsn): string {
  let where: string;
  if (kind === "sqlite") where = realpathSync(dsn);
  else {
    const url = new URL(dsn);
    const port = url.port || (kind === "mysql" ? "3306" : "5432");
    where = `${url.hostname.toLowerCase()}:${port}${url.pathname}`;
  }
  return `${kind}:${createHash("sha256").update(where).digest("hex").slice(0, 16)}`;
}

export interface SourceDb {
  readonly kind: DbKind;
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** Opens the source read-only (a SQLite file is opened read-only, so not even its journal mode changes). */
export async function openSource({ kind, dsn }: SourceDsn): Promise<SourceDb> {
  if (kind === "sqlite") {
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(dsn, { readonly: true, fileMustExist: true });
    db.defaultSafeIntegers(true);
    return {
      kind,
      query: async (sql, params = []) => db.prepare(sql).all(...(params as unknown[])) as Row[],
      close: async () => void db.close(),
    };
  }
  const { openDirectDb } = await import("@/lib/db/direct");
  const db = await openDirectDb(kind, dsn, { maxConnections: 2 });
  return { kind, query: (sql, params) => db.query(sql, params), close: () => db.close() };
}

export const SOURCE_TABLES = [
  "users",
  "tokens",
  "channels",
  "abilities",
  "options",
  "redemptions",
  "top_ups",
  "midjourneys",
  "tasks",
  "quota_data",
  "logs",
] as const;
export type SourceTable = (typeof SOURCE_TABLES)[number];

export type Flavor = "one-api" | "new-api v0.3" | "new-api latest";

export type SourceSchema = {
  /** The columns of each table present (a table the install does not have is absent). */
  columns: Partial<Record<SourceTable, Set<string>>>;
  flavor: Flavor;
};

async function columnsOf(db: SourceDb, table: string): Promise<Set<string>> {
  const sql =
    db.kind === "sqlite"
      ? "SELECT name FROM pragma_table_info(?)"
      : db.kind === "postgresql"
        ? "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?"
        : "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?";
  const rows = await db.query(sql, [table]);
  return new Set(rows.map((r) => String(r.name ?? r.NAME ?? r.COLUMN_NAME)));
}

/** Which tables and columns the source has, and so which gateway and version wrote it. */
export async function readSourceSchema(db: SourceDb): Promise<SourceSchema> {
  const columns: SourceSchema["columns"] = {};
  for (const table of SOURCE_TABLES) {
    const cols = await columnsOf(db, table);
    if (cols.size > 0) columns[table] = cols;
  }
  if (!columns.users || !columns.tokens) throw new Error(SOURCE_MSG.notNewApi);
  const flavor: Flavor =
    columns.tokens.has("subnet") || !columns.users.has("aff_count")
      ? "one-api"
      : columns.channels?.has("channel_info")
        ? "new-api latest"
        : "new-api v0.3";
  return { columns, flavor };
}

/** Double-quoted on PostgreSQL and SQLite, backticks on MySQL (the source has no ANSI_QUOTES guarantee). */
export const ident = (kind: DbKind, name: string) => (kind === "mysql" ? `\`${name}\`` : `"${name}"`);

/** The rows of `table` with id above `afterId`, in id order: keyset paging, flat in memory on any size. */
export function readBatch(db: SourceDb, table: SourceTable, afterId: number, limit: number): Promise<Row[]> {
  return db.query(`SELECT * FROM ${ident(db.kind, table)} WHERE id > ? ORDER BY id LIMIT ${Math.floor(limit)}`, [afterId]);
}

export async function countRows(db: SourceDb, table: SourceTable): Promise<number> {
  const [row] = await db.query(`SELECT COUNT(*) AS n FROM ${ident(db.kind, table)}`);
  return Number(row?.n ?? 0);
}
