// Runs before each test file, in its own process, before any module reads the environment. Every
// file gets its own scratch data directory, so no test touches ./data, and its own main database:
// a SQLite file in that directory, or with QIAO_TEST_DB=postgresql a fresh copy of the run's
// migrated template (tests/setup/postgres.ts) named by SQL_DSN, so getDb(), the direct connection
// and every server process the file starts (they inherit process.env) use PostgreSQL. Tests that
// open a database of a named kind (createTestDatabase) are not affected; a file tagged as naming
// every database it uses gets a main database that does not exist.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, inject } from "vitest";
import { NAMES_ITS_DATABASES } from "@/scripts/database-tests.mjs";

/** The main database of a file tagged NAMES_ITS_DATABASES: there is none by that name. */
const UNUSED_MAIN_DATABASE = "qiao_file_names_every_database_it_uses";

if (!process.env.QIAO_TEST_KEEP_ENV) {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "qiao-test-"));
  process.env.SQLITE_PATH = path.join(process.env.DATA_DIR, "qiao.db");
  process.env.SESSION_SECRET = "test-session-secret-0123456789abcdef";
  process.env.NEXT_TELEMETRY_DISABLED = "1";

  // Not a database this shell happens to name: the run's kind decides.
  process.env.SQL_DSN = "";
  const { template, prefix } = inject("pgTemplate");
  if (readFileSync(expect.getState().testPath!, "utf8").includes(NAMES_ITS_DATABASES)) {
    // The file says it names every database it uses (scripts/database-tests.mjs): its main
    // database is one that does not exist, so any use of it fails, on every pass.
    process.env.SQL_DSN = `postgres://postgres@127.0.0.1:5432/${UNUSED_MAIN_DATABASE}`;
  } else if (template) {
    const pg = (await import("pg")).default;
    // Dropped at the end of the run (tests/setup/postgres.ts), when this process is gone: its
    // pools and timers (the ledger's flush) may still be busy after the file's last hook.
    const name = `${prefix}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.end();
    }
    process.env.SQL_DSN = `postgres://postgres@127.0.0.1:5432/${name}`;
  }
}
