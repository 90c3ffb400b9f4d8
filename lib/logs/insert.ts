// Inserts many log rows with a few multi-row INSERT statements. Prisma's createMany compiles a new
// query plan for every row count (slow on the relay's flush path, and each plan stays cached), so
// the relay's batches go through raw SQL instead. The column list is the LogRow type's.
import type { Db, DbKind } from "@/lib/db";
import type { LogRow } from "@/lib/billing/ledger";

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

/** Rows per statement: well under every database's parameter limit (SQLite 32 766, PG 65 535). */
const ROWS_PER_STATEMENT = 500;

const quote = (kind: DbKind, name: string) => (kind === "mysql" ? `\`${name}\`` : `"${name}"`);

const statementCache = new Map<string, string>();

function insertSql(kind: DbKind, rows: number): string {
  const key = `${kind}:${rows}`;
  let sql = statementCache.get(key);
  if (!sql) {
    const cols = COLUMNS.map((c) => quote(kind, c)).join(", ");
    let n = 0;
    const values = Array.from({ length: rows }, () => `(${COLUMNS.map(() => (kind === "postgresql" ? `$${++n}` : "?")).join(", ")})`).join(", ");
    sql = `INSERT INTO ${quote(kind, "logs")} (${cols}) VALUES ${values}`;
    if (statementCache.size > 64) statementCache.clear();
    statementCache.set(key, sql);
  }
  return sql;
}

export async function insertLogRows(db: Pick<Db, "$executeRawUnsafe">, kind: DbKind, rows: readonly LogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const row of chunk) {
      for (const c of COLUMNS) {
        const v = row[c];
        // better-sqlite3 binds no booleans.
        params.push(typeof v === "boolean" && kind === "sqlite" ? (v ? 1 : 0) : v);
      }
    }
    await db.$executeRawUnsafe(insertSql(kind, chunk.length), ...params);
  }
}
