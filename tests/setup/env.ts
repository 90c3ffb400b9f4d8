// Runs before each test file, in its own process, before any module reads the environment. Every
// file gets its own scratch data directory, so no test touches ./data, and its own main database:
// a SQLite file in that directory, or with QIAO_TEST_DB=postgresql a fresh copy of the run's
// migrated template (tests/setup/postgres.ts) named by SQL_DSN, so getDb(), the direct connection
// and every server process the file starts (they inherit process.env) use PostgreSQL. Tests that
// open a database of a named kind (createTestDatabase) are not affected.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, inject } from "vitest";

if (!process.env.QIAO_TEST_KEEP_ENV) {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "qiao-test-"));
  process.env.SQLITE_PATH = path.join(process.env.DATA_DIR, "qiao.db");
  process.env.SESSION_SECRET = "test-session-secret-0123456789abcdef";
  process.env.NEXT_TELEMETRY_DISABLED = "1";

  const { template, prefix } = inject("pgTemplate");
  if (template) {
    const pg = (await import("pg")).default;
    const name = `${prefix}_${randomBytes(4).toString("hex")}`;
    const admin = async (sql: string) => {
      const c = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
      await c.connect();
      try {
        await c.query(sql);
      } finally {
        await c.end();
      }
    };
    await admin(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    process.env.SQL_DSN = `postgres://postgres@127.0.0.1:5432/${name}`;

    // Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks
    // in reverse order): the file has stopped its servers. The process's own connections (lib/db,
    // lib/db/direct.ts keep them on globalThis) are closed first so that none breaks mid-drop.
    afterAll(async () => {
      const slots = globalThis as unknown as Record<symbol, { db?: Promise<{ $disconnect?(): Promise<void>; close?(): Promise<void> }> }>;
      for (const key of ["qiao.directDb", "qiao.db"]) {
        const open = await slots[Symbol.for(key)]?.db?.catch(() => undefined);
        await (open?.close?.() ?? open?.$disconnect?.())?.catch(() => undefined);
      }
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }
}
