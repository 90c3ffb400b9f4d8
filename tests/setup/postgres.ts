// Vitest's global setup. With QIAO_TEST_DB=postgresql the run's main database is PostgreSQL: the
// migrations are applied once, into a template database of this run, and tests/setup/env.ts gives
// every test file its own copy of it (CREATE DATABASE … TEMPLATE, a file copy on the server: much
// faster than migrating each one). At the end every database of the run is dropped, and at the
// start those of runs that began more than a day ago (killed before their end). Without
// QIAO_TEST_DB this does nothing (SQLite files, as ever).
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";

export const PG_ADMIN_DSN = "postgres://postgres@127.0.0.1:5432/postgres";
/** Every database of a run is named `${RUN_PREFIX}<start time, base 36>_<random>_…`. */
const RUN_PREFIX = "qiao_r_";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's template database and the prefix of its per-file copies ("" on SQLite). */
    pgTemplate: { template: string; prefix: string };
  }
}

export default async function setup(project: TestProject) {
  const kind = process.env.QIAO_TEST_DB ?? "";
  if (kind === "" || kind === "sqlite") {
    project.provide("pgTemplate", { template: "", prefix: "" });
    return;
  }
  if (kind !== "postgresql") throw new Error(`QIAO_TEST_DB must be "sqlite" or "postgresql", got "${kind}"`);

  // Lower case, digits and _ only: the names go into SQL unquoted. The start time is in the name.
  const prefix = `${RUN_PREFIX}${Date.now().toString(36)}_${randomBytes(2).toString("hex")}`;
  const template = `${prefix}_tpl`;
  const pg = (await import("pg")).default;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN_DSN });
    await c.connect().catch((e: Error) => {
      throw new Error(
        `QIAO_TEST_DB=postgresql, but PostgreSQL on 127.0.0.1:5432 is not reachable (${e.message}); ` +
          "start it with the command in shared/guide/environment.md",
      );
    });
    try {
      return (await c.query(sql)).rows as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };

  const dropAll = async (names: string[]) => {
    // The copies first: a template cannot be dropped while it is being copied.
    for (const name of [...names].sort((a, b) => Number(a.endsWith("_tpl")) - Number(b.endsWith("_tpl")))) {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  };
  const existing = (await admin(`SELECT datname FROM pg_database WHERE datname LIKE '${RUN_PREFIX}%'`)).map((r) => String(r.datname));
  const dayAgo = Date.now() - 24 * 3600_000;
  await dropAll(existing.filter((name) => parseInt(name.slice(RUN_PREFIX.length).split("_")[0]!, 36) < dayAgo));

  await admin(`CREATE DATABASE ${template}`);
  const { openDb } = await import("@/lib/db");
  const { applyMigrations } = await import("@/lib/db/migrate");
  const db = await openDb("postgresql", `postgres://postgres@127.0.0.1:5432/${template}`);
  try {
    await applyMigrations(db, "postgresql");
  } finally {
    await db.$disconnect();
  }
  project.provide("pgTemplate", { template, prefix });

  return async () => {
    const rows = await admin(`SELECT datname FROM pg_database WHERE datname LIKE '${prefix}\\_%'`);
    await dropAll(rows.map((r) => String(r.datname)));
  };
}
