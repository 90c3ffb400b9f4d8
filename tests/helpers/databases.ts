// Throwaway databases on the loopback PostgreSQL and MariaDB servers, migrated like production.
// A server that is down fails the test with a clear message: integration tests never skip.
import { randomBytes } from "node:crypto";
import { copyFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { openDb, type Db, type DbKind } from "@/lib/db";
import { applyMigrations } from "@/lib/db/migrate";
import { type DirectDb, openDirectDb } from "@/lib/db/direct";
import { dataDir } from "@/lib/env";

export const PG_ADMIN_DSN = "postgres://postgres@127.0.0.1:5432/postgres";
export const MYSQL_ADMIN = { host: "127.0.0.1", port: 3306, user: "root", password: "" };

/** `db` is Prisma's client, `direct` the driver connection (lib/db/direct.ts) the relay's queries use. */
export type TestDatabase = { kind: DbKind; dsn: string; db: Db; direct: DirectDb; drop: () => Promise<void> };

/** A fresh database, migrated unless `migrate` is false (a server started on it will migrate it). */
export async function createTestDatabase(kind: DbKind, { migrate = true }: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `qiao_t_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  let dsn: string;
  let dropServer: () => Promise<void> = async () => {};
  if (kind === "postgresql") {
    const pg = await import("pg");
    const admin = new pg.default.Client({ connectionString: PG_ADMIN_DSN });
    await admin.connect().catch((e: Error) => {
      throw new Error(
        `PostgreSQL on 127.0.0.1:5432 is not reachable (${e.message}); start it with the command in shared/guide/environment.md`,
      );
    });
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    dsn = `postgres://postgres@127.0.0.1:5432/${name}`;
    dropServer = async () => {
      const c = new pg.default.Client({ connectionString: PG_ADMIN_DSN });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  } else if (kind === "mysql") {
    const mariadb = await import("mariadb");
    const conn = await mariadb.createConnection(MYSQL_ADMIN).catch((e: Error) => {
      throw new Error(
        `MariaDB on 127.0.0.1:3306 is not reachable (${e.message}); start it with the command in shared/guide/environment.md`,
      );
    });
    await conn.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await conn.end();
    dsn = `mysql://root@127.0.0.1:3306/${name}`;
    dropServer = async () => {
      const c = await mariadb.createConnection(MYSQL_ADMIN);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    };
  } else {
    dsn = `${dataDir}/${name}.db`;
  }
  const db = await openDb(kind, dsn);
  if (migrate) await applyMigrations(db, kind);
  const direct = await openDirectDb(kind, dsn);
  return {
    kind,
    dsn,
    db,
    direct,
    drop: async () => {
      await direct.close();
      await db.$disconnect();
      await dropServer();
    },
  };
}

/**
 * One number `sql` reads from the SQLite file at `file` alone, without its WAL: the database as of
 * its last checkpoint. null while not even the table is in the file (the migrations are in the WAL too).
 */
export function readCheckpointed(file: string, sql: string, params: unknown[] = []): number | null {
  const copy = path.join(os.tmpdir(), `qiao-checkpointed-${process.pid}-${randomBytes(3).toString("hex")}.db`);
  copyFileSync(file, copy);
  const db = new Database(copy);
  try {
    const row = db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
    return row ? Number(Object.values(row)[0]) : null;
  } catch {
    return null;
  } finally {
    db.close();
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  }
}
