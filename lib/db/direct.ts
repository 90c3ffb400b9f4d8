// A direct connection to the database for the relay's batched writes (usage logs and counters).
// Prisma is fine for everything else, but it costs ~100 µs of CPU per log row when a batch binds
// thousands of parameters; the drivers themselves (better-sqlite3, pg, mariadb — the same ones
// Prisma's adapters use) take a few microseconds. Statements are written with `?` placeholders.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { DbKind } from "@/lib/db";

export type Statement = {
  sql: string;
  params: readonly unknown[];
  /** Run in the same transaction when this statement matched no row (a conditional update missed). */
  ifNone?: readonly Statement[];
};

export interface DirectWriter {
  readonly kind: DbKind;
  /**
   * Runs the statements in one transaction; resolves to the indexes of the statements with an
   * `ifNone` that matched no row (their `ifNone` statements ran).
   */
  transaction(statements: readonly Statement[]): Promise<number[]>;
  close(): Promise<void>;
}

/** `?` → `$1, $2, …` for PostgreSQL (our statements never contain a literal `?`). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export async function openDirectWriter(kind: DbKind, dsn: string): Promise<DirectWriter> {
  if (kind === "postgresql") {
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: dsn, max: 2 });
    // An idle connection the server drops (restart, failover) must not crash the process.
    pool.on("error", (error: Error) => console.error("[db] direct PostgreSQL connection lost:", error.message));
    const cache = new Map<string, string>();
    return {
      kind,
      async transaction(statements) {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const run = async (s: Statement) => {
            let text = cache.get(s.sql);
            if (!text) cache.set(s.sql, (text = numbered(s.sql)));
            const result = await client.query(text, s.params.map((p) => (typeof p === "bigint" ? p.toString() : p)) as unknown[]);
            return result.rowCount ?? 0;
          };
          const missed: number[] = [];
          for (const [i, s] of statements.entries()) {
            if ((await run(s)) === 0 && s.ifNone) {
              missed.push(i);
              for (const f of s.ifNone) await run(f);
            }
          }
          await client.query("COMMIT");
          return missed;
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  if (kind === "mysql") {
    const mariadb = await import("mariadb");
    const url = new URL(dsn.replace(/^mysql:/i, "mariadb:"));
    const pool = mariadb.createPool({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.replace(/^\//, ""),
      connectionLimit: 2,
      allowPublicKeyRetrieval: true,
    });
    return {
      kind,
      async transaction(statements) {
        const conn = await pool.getConnection();
        try {
          await conn.beginTransaction();
          // Affected rows are rows matched (the connector's foundRows default), not rows changed.
          const run = async (s: Statement) => Number((await conn.query(s.sql, s.params as unknown[]))?.affectedRows ?? 0);
          const missed: number[] = [];
          for (const [i, s] of statements.entries()) {
            if ((await run(s)) === 0 && s.ifNone) {
              missed.push(i);
              for (const f of s.ifNone) await run(f);
            }
          }
          await conn.commit();
          return missed;
        } catch (error) {
          await conn.rollback().catch(() => undefined);
          throw error;
        } finally {
          await conn.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const Database = (await import("better-sqlite3")).default;
  if (dsn !== ":memory:") mkdirSync(path.dirname(dsn), { recursive: true });
  // No busy wait: this connection shares the thread with Prisma's, so waiting here would only
  // stall the Prisma transaction holding the lock. A busy database fails the batch, which the
  // ledger retries on its next tick.
  const db = new Database(dsn, { timeout: 0 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const prepared = new Map<string, ReturnType<typeof db.prepare>>();
  const runOne = (s: Statement): number => {
    let stmt = prepared.get(s.sql);
    if (!stmt) {
      if (prepared.size > 256) prepared.clear();
      prepared.set(s.sql, (stmt = db.prepare(s.sql)));
    }
    // better-sqlite3 binds no booleans.
    const params = s.params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
    return (stmt.run as (...args: unknown[]) => { changes: number }).apply(stmt, params).changes;
  };
  const run = db.transaction((statements: readonly Statement[]) => {
    const missed: number[] = [];
    for (const [i, s] of statements.entries()) {
      if (runOne(s) === 0 && s.ifNone) {
        missed.push(i);
        for (const f of s.ifNone) runOne(f);
      }
    }
    return missed;
  });
  return {
    kind,
    async transaction(statements) {
      return run.immediate(statements);
    },
    async close() {
      db.close();
    },
  };
}
