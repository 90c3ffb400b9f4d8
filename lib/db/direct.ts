// The direct connection: Qiao's own SQL through the database drivers (better-sqlite3, pg, mariadb:
// the ones Prisma's adapters use), without Prisma. Everything a relay worker asks of the database
// goes through it (keys, users, the routing table, options, sessions, the quota ledger and its
// usage batches), so a relay worker never loads Prisma, whose runtime and WebAssembly query
// compiler cost ~50 MB per process (bench/HISTORY.md). The console keeps Prisma for its own pages
// and calls the same functions for these queries, so each of them is written once.
//
// Statements use `?` placeholders and double-quoted identifiers on all three databases (MySQL
// connections run with ANSI_QUOTES). Values come back as each driver gives them: integers may be
// bigint (SQLite, BIGINT columns), sums decimal strings (PostgreSQL, MySQL), booleans 0/1: read
// them with int(), big() and bool() from lib/db/num.ts.
//
// A transaction is a list of statements, not a callback: on SQLite it runs synchronously, so
// nothing else in the process slips into it and no other connection in the same thread (Prisma's,
// in the console) ever waits on a lock held across an await. A conditional update that must
// match is marked `required`; when it matches nothing, the transaction rolls back and says which.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { dbDsn, dbKind, logDbDsn, logDbKind, separateLogDb } from "@/lib/db/kind";
import type { DbKind } from "@/lib/db/types";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("db");

export type Row = Record<string, unknown>;

export type Statement = {
  sql: string;
  params: readonly unknown[];
  /** Run in the same transaction when this statement matched no row (a conditional update missed). */
  ifNone?: readonly Statement[];
  /** When this statement matches no row, the whole transaction is rolled back (see TransactionResult.failed). */
  required?: boolean;
};

export type TransactionResult = {
  /** The index of the `required` statement that matched no row (nothing was written), or -1: committed. */
  failed: number;
  /** The indexes of the statements with an `ifNone` that matched no row (their `ifNone` statements ran). */
  missed: number[];
};

export interface DirectDb {
  readonly kind: DbKind;
  /** The rows of a query. */
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs one statement on its own; resolves to the number of rows it matched. */
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs the statements in one transaction, in order. */
  transaction(statements: readonly Statement[]): Promise<TransactionResult>;
  close(): Promise<void>;
}

/**
 * A relay worker's wal_autocheckpoint, in pages (SQLite's default is 1000): the console checkpoints
 * the WAL (lib/db/checkpointer.ts), and this is reached only should it stop (~100 MB at 4 KiB pages).
 */
export const RELAY_WAL_AUTOCHECKPOINT_PAGES = 25_000;

/** How long SQLite work waits for another connection's write lock by default (Prisma's adapter waits as long). */
const SQLITE_BUSY_WAIT_MS = 5_000;

/** `?` → `$1, $2, …` for PostgreSQL (our statements never contain a literal `?`). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Thrown inside a transaction to roll it back when a required statement matched no row. */
class RequiredMissed {
  constructor(readonly index: number) {}
}

/**
 * The one reading of `ifNone` and `required`: yields the statements to run, in order, each resumed
 * with the rows it matched; returns the indexes that ran their `ifNone`. Throws RequiredMissed,
 * which must roll the transaction back. SQLite drives it synchronously, the servers with awaits.
 */
function* transactionPlan(statements: readonly Statement[]): Generator<Statement, number[], number> {
  const missed: number[] = [];
  for (const [i, s] of statements.entries()) {
    if ((yield s) !== 0) continue;
    if (s.required) throw new RequiredMissed(i);
    if (s.ifNone) {
      missed.push(i);
      for (const f of s.ifNone) yield f;
    }
  }
  return missed;
}

async function runPlan(statements: readonly Statement[], run: (s: Statement) => Promise<number>): Promise<number[]> {
  const plan = transactionPlan(statements);
  for (let step = plan.next(); ; ) {
    if (step.done) return step.value;
    step = plan.next(await run(step.value));
  }
}

function runPlanSync(statements: readonly Statement[], run: (s: Statement) => number): number[] {
  const plan = transactionPlan(statements);
  for (let step = plan.next(); ; ) {
    if (step.done) return step.value;
    step = plan.next(run(step.value));
  }
}

export type DirectDbOptions = {
  /** Pool size on a database server (connections open as needed). */
  maxConnections?: number;
  /** How long SQLite work waits for another connection's write lock, without blocking the event loop. */
  busyWaitMs?: number;
  /** SQLite: the connection's wal_autocheckpoint in pages (SQLite's default, 1000, when not given). */
  walAutocheckpointPages?: number;
};

/** Opens a direct connection. Tests open one per throwaway database. */
export async function openDirectDb(kind: DbKind, dsn: string, options: DirectDbOptions = {}): Promise<DirectDb> {
  const { maxConnections = 4, busyWaitMs = SQLITE_BUSY_WAIT_MS, walAutocheckpointPages } = options;
  if (kind === "postgresql") return openPostgres(dsn, maxConnections);
  if (kind === "mysql") return openMysql(dsn, maxConnections);
  return openSqlite(dsn, busyWaitMs, walAutocheckpointPages);
}

async function openPostgres(dsn: string, max: number): Promise<DirectDb> {
  const pg = (await import("pg")).default;
  // BIGINT (quota) as bigint, exactly; the rest as pg reads them (SUM → numeric → string).
  const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? BigInt : pg.types.getTypeParser(oid, format as "text")) };
  const pool = new pg.Pool({ connectionString: dsn, max, types } as ConstructorParameters<typeof pg.Pool>[0]);
  // An idle connection the server drops (restart, failover) must not crash the process.
  pool.on("error", (err: Error) => log.error({ err }, "direct PostgreSQL connection lost"));
  const texts = new Map<string, string>();
  const text = (sql: string) => {
    let t = texts.get(sql);
    if (!t) {
      if (texts.size > 512) texts.clear();
      texts.set(sql, (t = numbered(sql)));
    }
    return t;
  };
  const values = (params: readonly unknown[]) => params.map((p) => (typeof p === "bigint" ? p.toString() : p));
  return {
    kind: "postgresql",
    async query(sql, params = []) {
      return (await pool.query(text(sql), values(params))).rows as Row[];
    },
    async execute(sql, params = []) {
      return (await pool.query(text(sql), values(params))).rowCount ?? 0;
    },
    async transaction(statements) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const missed = await runPlan(statements, async (s) => (await client.query(text(s.sql), values(s.params))).rowCount ?? 0);
        await client.query("COMMIT");
        return { failed: -1, missed };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        if (error instanceof RequiredMissed) return { failed: error.index, missed: [] };
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function openMysql(dsn: string, connectionLimit: number): Promise<DirectDb> {
  const mariadb = await import("mariadb");
  const url = new URL(dsn.replace(/^mysql:/i, "mariadb:"));
  const pool = mariadb.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, ""),
    connectionLimit,
    // Connections open when needed, not all at start.
    minimumIdle: 0,
    // A burst of leases queues for a connection rather than failing after the default 10 s.
    acquireTimeout: 30_000,
    allowPublicKeyRetrieval: true,
    // Double quotes name identifiers, as on PostgreSQL and SQLite: one statement text for all three.
    initSql: "SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@SESSION.sql_mode, ''), 'ANSI_QUOTES')",
  });
  // Affected rows are rows matched (the connector's foundRows default), not rows changed.
  const affected = (result: unknown) => Number((result as { affectedRows?: number } | undefined)?.affectedRows ?? 0);
  return {
    kind: "mysql",
    async query(sql, params = []) {
      return (await pool.query(sql, params as unknown[])) as Row[];
    },
    async execute(sql, params = []) {
      return affected(await pool.query(sql, params as unknown[]));
    },
    async transaction(statements) {
      const conn = await pool.getConnection();
      try {
        await conn.beginTransaction();
        const missed = await runPlan(statements, async (s) => affected(await conn.query(s.sql, s.params as unknown[])));
        await conn.commit();
        return { failed: -1, missed };
      } catch (error) {
        await conn.rollback().catch(() => undefined);
        if (error instanceof RequiredMissed) return { failed: error.index, missed: [] };
        throw error;
      } finally {
        await conn.release();
      }
    },
    close: () => pool.end(),
  };
}

const isBusy = (error: unknown) => String((error as { code?: unknown } | null)?.code ?? "").startsWith("SQLITE_BUSY");

async function openSqlite(file: string, busyWaitMs: number, walAutocheckpointPages: number | undefined): Promise<DirectDb> {
  const Database = (await import("better-sqlite3")).default;
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  // No busy wait inside the driver: it would block the event loop, and in the console it would
  // stall Prisma's connection in the same thread, which may be the one holding the lock. A busy
  // database is waited for below, between turns of the event loop.
  const db = new Database(file, { timeout: 0 });
  db.pragma("journal_mode = WAL");
  if (walAutocheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.trunc(walAutocheckpointPages))}`);
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Statement journals in memory: each multi-row INSERT of a usage batch runs inside a transaction,
  // so SQLite keeps the pages it changes in a statement journal (to undo that statement alone),
  // which it otherwise writes to a temporary file: one pwrite per page, half of a relay worker's
  // disk writes (bench/README.md, "Tail latency"). Such a journal holds one statement's pages.
  db.pragma("temp_store = MEMORY");
  // Integers as bigint: quota columns are exact whatever their size; int() reads the others.
  db.defaultSafeIntegers(true);
  const prepared = new Map<string, ReturnType<typeof db.prepare>>();
  const statement = (sql: string) => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      if (prepared.size > 256) prepared.clear();
      prepared.set(sql, (stmt = db.prepare(sql)));
    }
    return stmt;
  };
  // better-sqlite3 binds no booleans.
  const values = (params: readonly unknown[]) => params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
  const runOne = (s: Statement): number => (statement(s.sql).run as (...a: unknown[]) => { changes: number })(...values(s.params)).changes;
  const inTransaction = db.transaction((statements: readonly Statement[]) => runPlanSync(statements, runOne));
  /** Runs `work` now, or again after short pauses while another process holds the lock. */
  const whenFree = async <T>(work: () => T): Promise<T> => {
    const deadline = Date.now() + busyWaitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  return {
    kind: "sqlite",
    query: (sql, params = []) => whenFree(() => (statement(sql).all as (...a: unknown[]) => Row[])(...values(params))),
    execute: (sql, params = []) => whenFree(() => runOne({ sql, params })),
    async transaction(statements) {
      try {
        return { failed: -1, missed: await whenFree(() => inTransaction.immediate(statements)) };
      } catch (error) {
        if (error instanceof RequiredMissed) return { failed: error.index, missed: [] };
        throw error;
      }
    },
    async close() {
      db.close();
    },
  };
}

type DirectState = { db?: Promise<DirectDb>; logDb?: Promise<DirectDb>; preparedElsewhere?: boolean; checkpointsElsewhere?: boolean };
const direct = processSingleton<DirectState>("directDb", () => ({}));

/**
 * Says that another process prepared the database (migrations, root account) before this one
 * started, as the console does for the relay workers of `npm start`: getDirectDb() then opens the
 * driver alone and Prisma is never loaded. Call it before the first getDirectDb().
 */
export function skipDatabasePreparation(): void {
  direct.preparedElsewhere = true;
}

/**
 * Says that another process checkpoints the SQLite file's WAL, as `npm start`'s console does for
 * the relay workers (lib/db/checkpointer.ts): this process's commits then checkpoint only past
 * RELAY_WAL_AUTOCHECKPOINT_PAGES, should that process's checkpoints stop. Call it before the first
 * getDirectDb(); nothing changes on a database server.
 */
export function leaveCheckpointsElsewhere(): void {
  direct.checkpointsElsewhere = true;
}

/**
 * Prepares a database through Prisma (lib/db: migrations, the root account), in a process not told
 * it is prepared; the one place the driver connection reaches Prisma, imported only when needed.
 */
async function prepare(which: "main" | "logs"): Promise<void> {
  const db = await import("@/lib/db");
  await (which === "main" ? db.getDb() : db.getLogDb());
}

/**
 * The process's direct connection (a pool of up to SQL_MAX_OPEN_CONNS on a database server),
 * opened on first use. Unless skipDatabasePreparation() was called, the database is prepared
 * first (lib/db getDb: migrations, the root account), so any caller may be a process's first.
 */
export function getDirectDb(): Promise<DirectDb> {
  if (!direct.db) {
    direct.db = (async () => {
      if (!direct.preparedElsewhere) await prepare("main");
      return openDirectDb(dbKind, dbDsn, {
        maxConnections: env.SQL_MAX_OPEN_CONNS,
        walAutocheckpointPages: direct.checkpointsElsewhere ? RELAY_WAL_AUTOCHECKPOINT_PAGES : undefined,
      });
    })();
    direct.db.catch(() => {
      direct.db = undefined;
    });
  }
  return direct.db;
}

/**
 * The direct connection for the `logs` table: a pool on LOG_SQL_DSN's database, or getDirectDb()
 * itself when LOG_SQL_DSN is empty (then nothing changes). Prepared (migrated) first like
 * getDirectDb() unless skipDatabasePreparation() was called.
 */
export function getLogDirectDb(): Promise<DirectDb> {
  if (!separateLogDb) return getDirectDb();
  if (!direct.logDb) {
    direct.logDb = (async () => {
      if (!direct.preparedElsewhere) await prepare("logs");
      return openDirectDb(logDbKind, logDbDsn, { maxConnections: env.SQL_MAX_OPEN_CONNS });
    })();
    direct.logDb.catch(() => {
      direct.logDb = undefined;
    });
  }
  return direct.logDb;
}
