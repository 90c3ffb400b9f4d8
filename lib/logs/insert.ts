// Multi-row INSERT statements for the relay's batched log rows, run through the direct writer
// (lib/db/direct.ts). The column list is the LogRow type's.
import { componentLogger } from "@/lib/log";
import type { DbKind } from "@/lib/db/types";
import { type DirectDb, getLogDirectDb, type Statement, type TransactionResult } from "@/lib/db/direct";
import { separateLogDb } from "@/lib/db/kind";

/** One log row as the relay writes it; COLUMNS below lists its fields in INSERT order. */
export type LogRow = {
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: bigint;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  channel_id: number;
  token_id: number;
  group: string;
  request_id: string;
  other: string;
};

const COLUMNS = [
  "user_id",
  "created_at",
  "type",
  "content",
  "username",
  "token_name",
  "model_name",
  "quota",
  "prompt_tokens",
  "completion_tokens",
  "use_time",
  "is_stream",
  "channel_id",
  "token_id",
  "group",
  "request_id",
  "other",
] as const satisfies ReadonlyArray<keyof LogRow>;

/**
 * Rows per statement, largest first: a batch is cut into these sizes only, so each database
 * prepares a handful of statements once instead of a new one for every batch size. 500 rows stay
 * well under every database's parameter limit (SQLite 32 766, PG 65 535).
 */
const CHUNK_SIZES = [500, 100, 20, 5, 1];

export const quoteIdent = (kind: DbKind, name: string) => (kind === "mysql" ? `\`${name}\`` : `"${name}"`);

const sqlCache = new Map<string, string>();

function insertSql(kind: DbKind, rows: number): string {
  const key = `${kind}:${rows}`;
  let sql = sqlCache.get(key);
  if (!sql) {
    const row = `(${COLUMNS.map(() => "?").join(", ")})`;
    sql = `INSERT INTO ${quoteIdent(kind, "logs")} (${COLUMNS.map((c) => quoteIdent(kind, c)).join(", ")}) VALUES ${Array(rows).fill(row).join(", ")}`;
    if (sqlCache.size > 64) sqlCache.clear();
    sqlCache.set(key, sql);
  }
  return sql;
}

export function logInsertStatements(kind: DbKind, rows: readonly LogRow[]): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  for (const size of CHUNK_SIZES) {
    for (; rows.length - i >= size; i += size) {
      const params: unknown[] = [];
      for (let r = i; r < i + size; r++) {
        const row = rows[r]!;
        for (const c of COLUMNS) params.push(row[c]);
      }
      out.push({ sql: insertSql(kind, size), params });
    }
  }
  return out;
}

/**
 * Runs `statements` on `db` with the inserts of `rows`: in the same transaction when the logs live
 * in db's database (LOG_SQL_DSN empty); else the statements alone, then, once they committed, the
 * rows in one transaction on the log database. A log write that fails there is reported and
 * dropped: what the statements wrote (money) stays written, as it would without its log row.
 */
export async function transactionWithLogs(
  db: DirectDb,
  statements: readonly Statement[],
  rows: readonly LogRow[],
): Promise<TransactionResult> {
  if (!separateLogDb || rows.length === 0) return db.transaction([...statements, ...logInsertStatements(db.kind, rows)]);
  const result = statements.length ? await db.transaction(statements) : { failed: -1, missed: [] };
  if (result.failed < 0) {
    try {
      const logDb = await getLogDirectDb();
      await logDb.transaction(logInsertStatements(logDb.kind, rows));
    } catch (error) {
      componentLogger("logs").error({ err: error, rows: rows.length }, "log rows not written to the log database");
    }
  }
  return result;
}
