// Applies the versioned migrations in lib/db/migrations.generated.ts (written by
// `npm run db:migration`) to the process's database.
//
// - Applied migrations are recorded in `qiao_migrations(id, checksum, applied_at)`.
// - The common case (nothing pending) costs one query.
// - Each migration runs in its own transaction on SQLite and PostgreSQL (transactional DDL); MySQL
//   commits every DDL statement implicitly, so there it runs statement by statement.
// - Several instances may start at once: PostgreSQL serialises on pg_advisory_xact_lock, MySQL on
//   GET_LOCK, SQLite on the database's write lock (the first statement of each transaction writes).
// - SQLite migrations run with foreign key enforcement off (table rebuilds would otherwise cascade
//   into child rows) and are checked with PRAGMA foreign_key_check before they commit.
// - A migration that was edited after it was applied (checksum mismatch), or an applied migration
//   this build does not know, stops the start with an error instead of guessing.
import type { Db, DbKind } from "@/lib/db/types";
import { migrations as generated, type Migration } from "@/lib/db/migrations.generated";

export type { Migration };

export const MIGRATIONS_TABLE = "qiao_migrations";

/** 64-bit key for pg_advisory_xact_lock: "qiaomigr" in ASCII. */
const PG_LOCK_KEY = "8172170130045364082";
/** MySQL lock names are server-wide: this one is per database (names are limited to 64 characters). */
const MYSQL_LOCK = "LEFT(CONCAT('qiao_migrations:', DATABASE()), 64)";
/** How long an instance waits for another one's migration before giving up. */
const LOCK_WAIT_SECONDS = 600;

type Tx = Pick<Db, "$queryRawUnsafe" | "$executeRawUnsafe">;
type Applied = { id: string; checksum: string };

const createTableSql: Record<DbKind, string> = {
  sqlite:
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT NOT NULL PRIMARY KEY, checksum TEXT NOT NULL, ` +
    `applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`,
  postgresql:
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id VARCHAR(191) NOT NULL PRIMARY KEY, checksum VARCHAR(64) NOT NULL, ` +
    `applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
  mysql:
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id VARCHAR(191) NOT NULL PRIMARY KEY, checksum VARCHAR(64) NOT NULL, ` +
    `applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE=InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
};

const selectApplied = `SELECT id, checksum FROM ${MIGRATIONS_TABLE} ORDER BY id`;

/**
 * Applies the pending migrations for `kind` in order and returns their ids (empty when the database
 * was up to date). `list` replaces the built-in migrations (tests).
 */
export async function applyMigrations(db: Db, kind: DbKind, list: Migration[] = generated[kind]): Promise<string[]> {
  // Fast path: one query when the table exists and nothing is pending.
  let applied: Applied[] | null = null;
  try {
    applied = await db.$queryRawUnsafe<Applied[]>(selectApplied);
  } catch (e) {
    if (!isMissingTable(e)) throw e;
  }
  if (applied && pendingOf(list, applied).length === 0) return [];

  const done: string[] = [];
  for (;;) {
    const id = await withRetry(kind, () => step(db, kind, list));
    if (id === null) return done;
    done.push(id);
  }
}

/** Under the lock: ensures the table, checks history, applies the first pending migration (if any). */
async function step(db: Db, kind: DbKind, list: Migration[]): Promise<string | null> {
  if (kind === "mysql") {
    // DDL commits implicitly on MySQL, so the transaction only pins one connection for the session lock.
    return db.$transaction(
      async (tx) => {
        const [row] = await tx.$queryRawUnsafe<{ got: unknown }[]>(`SELECT GET_LOCK(${MYSQL_LOCK}, ${LOCK_WAIT_SECONDS}) AS got`);
        if (Number(row?.got) !== 1) {
          throw new Error(`another instance held the migration lock (GET_LOCK) for more than ${LOCK_WAIT_SECONDS}s`);
        }
        try {
          await tx.$executeRawUnsafe(createTableSql.mysql);
          const next = pendingOf(list, await tx.$queryRawUnsafe<Applied[]>(selectApplied))[0];
          if (!next) return null;
          const statements = splitSqlStatements(next.sql, "mysql");
          for (const [n, sql] of statements.entries()) {
            try {
              await tx.$executeRawUnsafe(sql);
            } catch (e) {
              throw new Error(
                `migration ${next.id} failed at statement ${n + 1} of ${statements.length} on MySQL, which cannot roll back DDL: ` +
                  `the statements before it stay applied and must be undone (or the rest applied) by hand.\n` +
                  `statement: ${sql}\ncause: ${errorMessage(e)}`,
                { cause: e },
              );
            }
          }
          await tx.$executeRawUnsafe(`INSERT INTO ${MIGRATIONS_TABLE} (id, checksum) VALUES (?, ?)`, next.id, next.checksum);
          return next.id;
        } finally {
          await tx.$queryRawUnsafe(`SELECT RELEASE_LOCK(${MYSQL_LOCK}) AS released`);
        }
      },
      { maxWait: 60_000, timeout: (LOCK_WAIT_SECONDS + 600) * 1000 },
    );
  }

  if (kind === "sqlite") {
    // Creating the table outside the transaction keeps the first statement inside it a write.
    await db.$queryRawUnsafe(createTableSql.sqlite);
    // SQLite rebuilds a table to change it (the engine's "RedefineTables": create, copy, drop, rename).
    // With foreign keys on, dropping a parent table deletes its children through ON DELETE CASCADE,
    // and PRAGMA foreign_keys cannot change inside a transaction: so it is switched off around it
    // and the result is checked with PRAGMA foreign_key_check before commit (SQLite's documented
    // procedure for schema changes).
    const [state] = await db.$queryRawUnsafe<{ foreign_keys: unknown }[]>("PRAGMA foreign_keys");
    const enforced = Number(state?.foreign_keys) === 1;
    if (enforced) await db.$queryRawUnsafe("PRAGMA foreign_keys = OFF");
    try {
      return await applyNextInTransaction(db, kind, list);
    } finally {
      if (enforced) await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
    }
  }
  return applyNextInTransaction(db, kind, list);
}

/** SQLite and PostgreSQL: the next pending migration and its record, in one transaction. */
function applyNextInTransaction(db: Db, kind: "sqlite" | "postgresql", list: Migration[]): Promise<string | null> {
  return db.$transaction(
    async (tx) => {
      if (kind === "postgresql") {
        // executeRaw: the function returns `void`, which queryRaw cannot deserialise.
        await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${PG_LOCK_KEY})`);
        await tx.$executeRawUnsafe(createTableSql.postgresql);
      } else {
        // A write as the first statement takes SQLite's write lock now (waiting on the busy timeout),
        // not at the first DDL statement after this transaction has read an outdated history.
        await tx.$queryRawUnsafe(`DELETE FROM ${MIGRATIONS_TABLE} WHERE id = ''`);
      }
      const next = pendingOf(list, await tx.$queryRawUnsafe<Applied[]>(selectApplied))[0];
      if (!next) return null;
      for (const sql of splitSqlStatements(next.sql, kind)) {
        try {
          await run(tx, kind, sql);
        } catch (e) {
          throw new Error(`migration ${next.id} failed (rolled back): ${errorMessage(e)}\nstatement: ${sql}`, { cause: e });
        }
      }
      if (kind === "sqlite") {
        const broken = await tx.$queryRawUnsafe<{ table: string; parent: string }[]>("PRAGMA foreign_key_check");
        if (broken.length) {
          const where = [...new Set(broken.map((r) => `${r.table} → ${r.parent}`))].join(", ");
          throw new Error(`migration ${next.id} failed (rolled back): it leaves ${broken.length} row(s) breaking foreign keys (${where})`);
        }
      }
      await run(
        tx,
        kind,
        `INSERT INTO ${MIGRATIONS_TABLE} (id, checksum) VALUES (${kind === "postgresql" ? "$1, $2" : "?, ?"})`,
        next.id,
        next.checksum,
      );
      return next.id;
    },
    { maxWait: 60_000, timeout: (LOCK_WAIT_SECONDS + 600) * 1000 },
  );
}

/** SQLite statements that return rows (PRAGMA, SELECT) fail through executeRaw; queryRaw runs both kinds. */
async function run(tx: Tx, kind: DbKind, sql: string, ...args: unknown[]): Promise<void> {
  if (kind === "sqlite") await tx.$queryRawUnsafe(sql, ...args);
  else await tx.$executeRawUnsafe(sql, ...args);
}

/** The migrations still to apply, after checking the applied history against `list`. */
export function pendingOf(list: Migration[], applied: Applied[]): Migration[] {
  const known = new Map(list.map((m) => [m.id, m]));
  const done = new Set<string>();
  for (const row of applied) {
    const m = known.get(row.id);
    if (!m) {
      throw new Error(
        `the database has migration "${row.id}" applied, which this version of Qiao does not know: ` +
          `it was migrated by a newer version. Run that version (or restore a backup taken before it).`,
      );
    }
    if (m.checksum !== row.checksum) {
      throw new Error(
        `migration "${row.id}" was changed after it was applied (checksum ${row.checksum} in ${MIGRATIONS_TABLE}, ` +
          `${m.checksum} in this build). Applied migrations must never be edited: restore its original SQL ` +
          `and put the change in a new migration (npm run db:migration -- <name>).`,
      );
    }
    done.add(row.id);
  }
  return list.filter((m) => !done.has(m.id));
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The tracking table is missing: "no such table" (SQLite), 42P01 (PostgreSQL), 1146 (MySQL). */
function isMissingTable(e: unknown): boolean {
  const err = e as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { kind?: string } } }; message?: string };
  if (err?.meta?.driverAdapterError?.cause?.kind === "TableDoesNotExist") return true;
  const code = String(err?.meta?.code ?? "");
  if (code === "42P01" || code === "1146") return true;
  return /no such table|does not exist|doesn't exist/i.test(err?.message ?? "");
}

/** SQLite reports a second process's open write transaction as "database is locked" after the busy timeout. */
async function withRetry<T>(kind: DbKind, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_SECONDS * 1000;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      const busy = kind === "sqlite" && /database is locked|SQLITE_BUSY/i.test(errorMessage(e));
      if (!busy || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
}

/**
 * Splits a migration script into statements at top-level semicolons. Understands `--` and `/* *\/`
 * comments, '…' strings ('' escapes; backslash escapes on MySQL), "…" and `…` identifiers,
 * PostgreSQL $tag$…$tag$ bodies, and SQLite's CREATE TRIGGER … BEGIN … END bodies. Statements that
 * are only comments are dropped; comments inside a statement are kept.
 */
export function splitSqlStatements(script: string, kind: DbKind): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  let trigger: boolean | null = null; // null: not yet known for this statement
  let lastWord = "";
  const flush = (end: number) => {
    const stmt = script.slice(start, end).trim();
    if (stripComments(stmt).trim()) out.push(stmt);
    start = end + 1;
    trigger = null;
    lastWord = "";
  };
  while (i < n) {
    const c = script[i];
    const next = script[i + 1];
    if (c === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? n : eol + 1;
    } else if (c === "/" && next === "*") {
      const close = script.indexOf("*/", i + 2);
      if (close === -1) throw new Error("unterminated /* comment in migration SQL");
      i = close + 2;
    } else if (c === "'" || c === '"' || c === "`") {
      i++;
      for (;;) {
        if (i >= n) throw new Error(`unterminated ${c} quote in migration SQL`);
        if (script[i] === "\\" && c === "'" && kind === "mysql") i += 2;
        else if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) {
          i++;
          break;
        } else i++;
      }
      lastWord = "";
    } else if (c === "$" && kind === "postgresql" && /^\$[A-Za-z_]*\$/.test(script.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i, i + 64))![0];
      const close = script.indexOf(tag, i + tag.length);
      if (close === -1) throw new Error(`unterminated ${tag} quote in migration SQL`);
      i = close + tag.length;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_]/.test(script[j])) j++;
      const word = script.slice(i, j).toUpperCase();
      if (trigger === null && kind === "sqlite") trigger = isTriggerHead(script.slice(start, j));
      lastWord = word;
      i = j;
    } else if (c === ";") {
      if (!trigger || lastWord === "END") flush(i);
      i++;
    } else {
      if (!/\s/.test(c)) lastWord = "";
      i++;
    }
  }
  flush(n);
  return out;
}

/** Whether a statement's first words make it a CREATE TRIGGER; null while they do not tell yet. */
function isTriggerHead(head: string): boolean | null {
  const w = stripComments(head).trim().toUpperCase().split(/\s+/);
  if (w[0] !== "CREATE") return false;
  const at = /^TEMP(ORARY)?$/.test(w[1] ?? "") ? 2 : 1;
  if (w.length <= at) return null;
  return w[at] === "TRIGGER";
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
}
