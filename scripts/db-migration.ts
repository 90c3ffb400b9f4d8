// Creates the next versioned migration for every supported database from prisma/schema.prisma.
//
//   npm run db:migration -- <name>           diff schema.prisma against the last snapshot and write
//                                            prisma/migrations/<provider>/<NNNN>_<name>/migration.sql
//   npm run db:migration -- <name> --mysql-manual
//                                            also write the MySQL file when it needs hand-written SQL
//   npm run db:migration -- --sync           only rebuild lib/db/migrations.generated.ts from disk
//
// Each provider keeps prisma/migrations/<provider>/schema.snapshot.prisma, the derived schema as of
// its last migration; the next migration is the diff between that snapshot and the current schema.
// SQLite and PostgreSQL diffs come from Prisma's WebAssembly schema engine (offline: PostgreSQL is
// diffed without a server), MySQL's from scripts/db/mysql-ddl.ts. The migration SQL is then bundled into
// lib/db/migrations.generated.ts, which lib/db/migrate.ts applies at start without touching the disk.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { diffMysqlSchemas, mysqlSchemaFromText } from "@/scripts/db/mysql-ddl";

export const PROVIDERS = ["sqlite", "postgresql", "mysql"] as const;
export type Provider = (typeof PROVIDERS)[number];
export type MigrationFile = { id: string; sql: string; checksum: string };

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const migrationsDir = path.join(root, "prisma/migrations");
export const generatedModule = path.join(root, "lib/db/migrations.generated.ts");
const SNAPSHOT = "schema.snapshot.prisma";
/** Left in a hand-written MySQL migration until the developer has finished it; blocks bundling. */
export const MANUAL_MARKER = "-- QIAO-TODO:";

// ---------------------------------------------------------------------------------------------
// Schemas

/** A schema.prisma text derived for each provider exactly as scripts/prisma-generate.mjs does. */
export async function deriveSchemas(source: string): Promise<Record<Provider, string>> {
  const mod = (await import(pathToFileURL(path.join(root, "scripts/prisma-generate.mjs")).href)) as {
    schemaFor(provider: Provider, base?: string): string;
  };
  return Object.fromEntries(PROVIDERS.map((p) => [p, mod.schemaFor(p, source)])) as Record<Provider, string>;
}

/** The current prisma/schema.prisma, derived for each provider. */
export async function currentSchemas(): Promise<Record<Provider, string>> {
  return deriveSchemas(readFileSync(path.join(root, "prisma/schema.prisma"), "utf8"));
}

export function readSnapshot(provider: Provider): string | null {
  const file = path.join(migrationsDir, provider, SNAPSHOT);
  return existsSync(file) ? readFileSync(file, "utf8") : null;
}

// ---------------------------------------------------------------------------------------------
// The WebAssembly schema engine (SQLite, PostgreSQL)

type DiffTarget =
  | { tag: "empty" }
  | { tag: "schemaDatamodel"; files: { path: string; content: string }[] }
  | { tag: "schemaDatasource"; files: { path: string; content: string }[]; configDir: string }
  | {
      tag: "migrations";
      baseDir: string;
      lockfile: { path: string; content: string | null };
      shadowDbInitScript: string;
      migrationDirectories: { path: string; migrationFile: { path: string; content: { tag: "ok"; value: string } } }[];
    };
export type SchemaEngine = {
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: { externalTables: string[]; externalEnums: string[] };
  }): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
};

type EngineModule = { SchemaEngine: { new: (o: unknown, log: (l: string) => void, factory: object) => Promise<SchemaEngine> } };
let engineModule: Promise<EngineModule> | undefined;

function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    const require = createRequire(import.meta.url);
    // The package's exports field hides the files Node needs; its .js entry imports the .wasm directly.
    const dir = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
    const bg = await import(pathToFileURL(path.join(dir, "schema_engine_bg.js")).href);
    const wasm = await WebAssembly.instantiate(readFileSync(path.join(dir, "schema_engine_bg.wasm")), {
      "./schema_engine_bg.js": bg,
    });
    bg.__wbg_set_wasm(wasm.instance.exports);
    (wasm.instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
    return bg as EngineModule;
  })();
  return engineModule;
}

/**
 * A stand-in PostgreSQL connection: the engine only asks for the server version before diffing two
 * datamodels, so migrations can be generated on a machine without PostgreSQL.
 */
function offlinePostgresFactory() {
  const offline = (sql: string) =>
    new Error(
      `the schema engine wanted to run SQL on PostgreSQL, which is not available offline (${sql.slice(0, 80)}…). ` +
        "Set QIAO_MIGRATION_PG_URL=postgres://… to let it use a real server.",
    );
  const adapter = {
    provider: "postgres",
    adapterName: "qiao-offline-postgres",
    async queryRaw(q: { sql: string }) {
      if (/version\(\)/.test(q.sql) && /pg_namespace/.test(q.sql)) {
        return { columnNames: ["exists", "version", "numeric_version"], columnTypes: [5, 7, 0], rows: [[true, "PostgreSQL 15.0", 150000]] };
      }
      throw offline(q.sql);
    },
    async executeRaw(q: { sql: string }): Promise<number> {
      throw offline(q.sql);
    },
    async executeScript(sql: string): Promise<void> {
      throw offline(sql);
    },
    async startTransaction(): Promise<never> {
      throw offline("BEGIN");
    },
    async dispose() {},
  };
  return { provider: "postgres", adapterName: adapter.adapterName, connect: async () => adapter, connectToShadowDb: async () => adapter };
}

/**
 * Opens the schema engine for a provider. `adapterFactory` is a Prisma driver adapter factory for a
 * real database (needed to diff from a live database or to replay migrations on a shadow database);
 * without one the engine can only diff datamodels.
 */
export async function openSchemaEngine(provider: "sqlite" | "postgresql", adapterFactory?: object): Promise<SchemaEngine> {
  const [{ SchemaEngine }, { bindMigrationAwareSqlAdapterFactory }] = await Promise.all([
    loadEngineModule(),
    import("@prisma/driver-adapter-utils"),
  ]);
  let factory = adapterFactory;
  if (!factory) {
    if (provider === "sqlite") {
      const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
      factory = new PrismaBetterSqlite3({ url: ":memory:" });
    } else if (process.env.QIAO_MIGRATION_PG_URL) {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      factory = new PrismaPg({ connectionString: process.env.QIAO_MIGRATION_PG_URL });
    } else {
      factory = offlinePostgresFactory();
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const bound = bindMigrationAwareSqlAdapterFactory(factory as any);
  return SchemaEngine.new({ datamodels: undefined }, () => {}, bound);
}

export const schemaFile = (content: string) => ({ tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content }] });
export const noFilters = { externalTables: [] as string[], externalEnums: [] as string[] };

/** The engine's SQL from one datamodel to another (null: from nothing), or null when they agree. */
export async function engineDiff(provider: "sqlite" | "postgresql", from: string | null, to: string): Promise<string | null> {
  const engine = await openSchemaEngine(provider);
  try {
    const r = await engine.diff({
      from: from === null ? { tag: "empty" } : schemaFile(from),
      to: schemaFile(to),
      script: true,
      exitCode: true,
      filters: noFilters,
    });
    if (r.exitCode === 0) return null;
    let sql = r.stdout ?? "";
    // The engine opens PostgreSQL scripts with CREATE SCHEMA IF NOT EXISTS "public", which fails for a
    // role without CREATE on the database even when the schema exists. Tables go to the DSN's schema.
    sql = sql.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n?/m, "");
    return sql.trim() ? sql : null;
  } finally {
    engine.free();
  }
}

// ---------------------------------------------------------------------------------------------
// Migrations on disk and the generated module

export function checksumOf(sql: string): string {
  return createHash("sha256").update(sql, "utf8").digest("hex");
}

/** Line endings normalised, so a checkout with CRLF conversion produces the same checksum. */
export function normalizeSql(sql: string): string {
  return sql.replace(/\r\n?/g, "\n");
}

/** The migrations of one provider on disk, in order. */
export function readMigrations(provider: Provider, dir = migrationsDir): MigrationFile[] {
  const base = path.join(dir, provider);
  if (!existsSync(base)) return [];
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d{4}_[a-z0-9_]+$/.test(d.name))
    .map((d) => d.name)
    .sort()
    .map((id) => {
      const sql = normalizeSql(readFileSync(path.join(base, id, "migration.sql"), "utf8"));
      return { id, sql, checksum: checksumOf(sql) };
    });
}

export function renderGeneratedModule(all: Record<Provider, MigrationFile[]>): string {
  const lines = [
    "// Generated by `npm run db:migration` from prisma/migrations/<provider>/<NNNN>_<name>/migration.sql.",
    "// Do not edit: change prisma/schema.prisma and create a new migration. lib/db/migrate.ts applies these.",
    "",
    "export type Migration = { id: string; sql: string; checksum: string };",
    "",
    'export const migrations: Record<"sqlite" | "postgresql" | "mysql", Migration[]> = {',
  ];
  for (const p of PROVIDERS) {
    lines.push(`  ${p}: [`);
    for (const m of all[p]) {
      lines.push(
        "    {",
        `      id: ${JSON.stringify(m.id)},`,
        `      checksum: ${JSON.stringify(m.checksum)},`,
        `      sql: ${JSON.stringify(m.sql)},`,
        "    },",
      );
    }
    lines.push("  ],");
  }
  lines.push("};", "");
  return lines.join("\n");
}

/** Rebuilds lib/db/migrations.generated.ts from disk; returns whether it changed. */
export function syncGeneratedModule(dir = migrationsDir, target = generatedModule): boolean {
  const all = Object.fromEntries(PROVIDERS.map((p) => [p, readMigrations(p, dir)])) as Record<Provider, MigrationFile[]>;
  const unfinished = PROVIDERS.flatMap((p) => all[p].filter((m) => m.sql.includes(MANUAL_MARKER)).map((m) => `${p}/${m.id}`));
  if (unfinished.length) {
    throw new Error(
      `unfinished hand-written migration(s): ${unfinished.join(", ")}. Write the SQL, delete the "${MANUAL_MARKER}" lines, ` +
        "then run `npm run db:migration -- --sync`.",
    );
  }
  const text = renderGeneratedModule(all);
  if (existsSync(target) && readFileSync(target, "utf8") === text) return false;
  writeFileSync(target, text);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Planning a migration

export type Plan = {
  provider: Provider;
  /** SQL of the change, or null when this provider's schema did not change. */
  sql: string | null;
  /** MySQL changes the generator cannot write (the developer must). */
  unsupported: string[];
  schema: string;
};

/** What a new migration would contain for each provider, diffing the snapshots against `schemas`. */
export async function planMigration(schemas?: Record<Provider, string>, dir = migrationsDir): Promise<Plan[]> {
  const current = schemas ?? (await currentSchemas());
  const snap = (p: Provider) => {
    const file = path.join(dir, p, SNAPSHOT);
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  };
  const plans: Plan[] = [];
  for (const p of PROVIDERS) {
    const before = snap(p);
    if (p === "mysql") {
      const { sql, unsupported } = diffMysqlSchemas(
        before === null ? { tables: [] } : mysqlSchemaFromText(before),
        mysqlSchemaFromText(current.mysql),
      );
      plans.push({ provider: p, sql: sql.trim() || unsupported.length > 0 ? sql : null, unsupported, schema: current.mysql });
    } else {
      plans.push({ provider: p, sql: await engineDiff(p, before, current[p]), unsupported: [], schema: current[p] });
    }
  }
  return plans;
}

/** The next migration number, shared by all providers so one change has one id everywhere. */
export function nextNumber(dir = migrationsDir): string {
  let max = 0;
  for (const p of PROVIDERS) {
    const base = path.join(dir, p);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const m = /^(\d{4})_/.exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
  }
  return String(max + 1).padStart(4, "0");
}

function header(id: string, provider: Provider): string {
  return `-- Migration ${id} for ${provider}, generated by \`npm run db:migration\` from prisma/schema.prisma.\n\n`;
}

// ---------------------------------------------------------------------------------------------
// CLI

async function main(argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith("--")));
  const names = argv.filter((a) => !a.startsWith("--"));
  const rel = (f: string) => path.relative(process.cwd(), f);
  if (flags.has("--sync") || names.length === 0) {
    if (names.length === 0 && !flags.has("--sync")) {
      console.error("usage: npm run db:migration -- <name> [--mysql-manual]   |   npm run db:migration -- --sync");
      return 2;
    }
    console.log(syncGeneratedModule() ? `updated ${rel(generatedModule)}` : `${rel(generatedModule)} is up to date`);
    return 0;
  }
  const name = names
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!name) {
    console.error("the migration name must contain letters or digits");
    return 2;
  }

  const plans = await planMigration();
  if (plans.every((p) => p.sql === null)) {
    console.log("No schema change since the last migration: nothing written.");
    if (syncGeneratedModule()) console.log(`updated ${rel(generatedModule)} (it was out of date with prisma/migrations)`);
    return 0;
  }
  const mysql = plans.find((p) => p.provider === "mysql")!;
  if (mysql.unsupported.length && !flags.has("--mysql-manual")) {
    console.error(
      "The MySQL generator only writes additive changes (new tables, columns, indexes, foreign keys). " +
        "This schema change also needs:\n" +
        mysql.unsupported.map((u) => `  - ${u}`).join("\n") +
        "\nNothing was written. Rerun with --mysql-manual to write every migration, with the MySQL one left for you " +
        `to complete by hand (it is marked "${MANUAL_MARKER}" and blocks bundling until you remove the marker).`,
    );
    return 1;
  }

  const id = `${nextNumber()}_${name}`;
  for (const plan of plans) {
    const dir = path.join(migrationsDir, plan.provider);
    mkdirSync(dir, { recursive: true });
    if (plan.sql !== null) {
      let sql = header(id, plan.provider) + plan.sql;
      if (plan.unsupported.length) {
        sql +=
          `\n${MANUAL_MARKER} write the SQL for these changes by hand, check it on MariaDB/MySQL, then delete every ${MANUAL_MARKER} line\n` +
          plan.unsupported.map((u) => `${MANUAL_MARKER}   ${u}\n`).join("");
      }
      const file = path.join(dir, id, "migration.sql");
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, sql.endsWith("\n") ? sql : `${sql}\n`);
      console.log(`wrote ${rel(file)}`);
    } else {
      console.log(`${plan.provider}: no change`);
    }
    writeFileSync(path.join(dir, SNAPSHOT), plan.schema);
  }
  if (mysql.unsupported.length) {
    console.log(`\nFinish prisma/migrations/mysql/${id}/migration.sql by hand, then run: npm run db:migration -- --sync`);
    return 0;
  }
  syncGeneratedModule();
  console.log(`wrote ${rel(generatedModule)}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
