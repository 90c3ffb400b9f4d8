// Proves that the committed migrations build exactly the database prisma/schema.prisma describes,
// on SQLite, PostgreSQL and MariaDB, that lib/db/migrations.generated.ts matches the .sql files, and
// that schema.prisma has no change waiting for a new migration. PostgreSQL and MariaDB must be up.
// @main-database none (every database here is named; scripts/database-tests.mjs).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/lib/db";
import { applyMigrations, type Migration } from "@/lib/db/migrate";
import { migrations } from "@/lib/db/migrations.generated";
import { constraintName, diffMysqlSchemas, mysqlSchemaFromText, renderMysqlSchema } from "@/scripts/db/mysql-ddl";
import {
  checksumOf,
  currentSchemas,
  deriveSchemas,
  generatedModule,
  noFilters,
  openSchemaEngine,
  planMigration,
  PROVIDERS,
  readMigrations,
  renderGeneratedModule,
  root,
  schemaFile,
  type Provider,
} from "@/scripts/db-migration";
import {
  CharAsTextPool,
  createMysqlDatabase,
  createPgDatabase,
  introspectMysql,
  mysqlConnect,
  mysqlSchemaDifferences,
  sqliteFile,
} from "./helpers";

let schemas: Record<Provider, string>;
/** schema.prisma with a new model, a new column, a new index: a typical next migration. */
let grown: Record<Provider, string>;
/** The migration the generator would write for `grown`, per provider. */
let nextMigration: Record<Provider, Migration>;

beforeAll(async () => {
  schemas = await currentSchemas();
  const source = readFileSync(`${root}/prisma/schema.prisma`, "utf8");
  const firstModel = /^model \w+ \{\n/m.exec(source);
  if (!firstModel) throw new Error("schema.prisma has no model");
  const at = firstModel.index + firstModel[0].length;
  const grownSource =
    source.slice(0, at) +
    "  drift_probe_note String? // @text\n  drift_probe_n    BigInt  @default(7)\n  @@index([drift_probe_n])\n" +
    source.slice(at) +
    '\nmodel DriftProbe {\n  id    Int    @id @default(autoincrement())\n  label String @unique @default("probe")\n' +
    '  note  String @default("") // @text\n  owner Int\n\n  @@index([owner, label])\n  @@map("drift_probe")\n}\n';
  grown = await deriveSchemas(grownSource);
  const plans = await planMigration(grown);
  nextMigration = Object.fromEntries(
    plans.map((p) => {
      if (p.sql === null || p.unsupported.length) throw new Error(`${p.provider}: unexpected plan ${JSON.stringify(p)}`);
      return [p.provider, { id: "9000_drift_probe", sql: p.sql, checksum: checksumOf(p.sql) }];
    }),
  ) as Record<Provider, Migration>;
});

describe("committed migrations", () => {
  it("lib/db/migrations.generated.ts matches prisma/migrations/*/*/migration.sql", () => {
    const onDisk = Object.fromEntries(PROVIDERS.map((p) => [p, readMigrations(p)])) as Record<Provider, Migration[]>;
    expect(migrations).toEqual(onDisk);
    expect(readFileSync(generatedModule, "utf8"), "run `npm run db:migration -- --sync`").toBe(renderGeneratedModule(onDisk));
    for (const p of PROVIDERS) {
      expect(onDisk[p].length, p).toBeGreaterThan(0);
      for (const m of onDisk[p]) expect(m.checksum).toBe(checksumOf(m.sql));
    }
  });

  it("are up to date with schema.prisma (a new migration would be empty)", async () => {
    const plans = await planMigration();
    for (const p of plans) {
      expect(p.sql, `${p.provider}: schema.prisma changed since the last migration: run \`npm run db:migration -- <name>\``).toBeNull();
    }
  });
});

describe("mysql-ddl", () => {
  it("names constraints like Prisma, truncated to 64 characters", () => {
    expect(constraintName("users", ["username"], "key")).toBe("users_username_key");
    expect(constraintName("logs", ["type", "created_at"], "idx")).toBe("logs_type_created_at_idx");
    expect(constraintName("abilities", ["channel_id"], "fkey")).toBe("abilities_channel_id_fkey");
    const long = constraintName("a_rather_long_table_name", ["first_long_column", "second_long_column"], "idx");
    expect(long).toHaveLength(64);
    expect(long.endsWith("_idx")).toBe(true);
  });

  it("renders additive changes and refuses the others", async () => {
    const before = mysqlSchemaFromText(schemas.mysql);
    const { sql, unsupported } = diffMysqlSchemas(before, mysqlSchemaFromText(grown.mysql));
    expect(unsupported).toEqual([]);
    expect(sql).toMatch(/CREATE TABLE `drift_probe`/);
    expect(sql).toMatch(/ADD COLUMN `drift_probe_note` TEXT NULL/);
    expect(sql).toMatch(/ADD COLUMN `drift_probe_n` BIGINT NOT NULL DEFAULT 7/);
    expect(sql).toMatch(/CREATE INDEX `\w+_drift_probe_n_idx` ON/);
    expect(diffMysqlSchemas(before, before)).toEqual({ sql: "", unsupported: [] });

    const shrunk = structuredClone(before);
    const users = shrunk.tables.find((t) => t.name === "users")!;
    users.columns = users.columns.filter((c) => c.name !== "email");
    users.columns.find((c) => c.name === "role")!.default = "2";
    shrunk.tables = shrunk.tables.filter((t) => t.name !== "options");
    expect(diffMysqlSchemas(before, shrunk).unsupported).toEqual(
      expect.arrayContaining(["drop table options", "drop column users.email", expect.stringMatching(/^change column users\.role/)]),
    );
    expect(renderMysqlSchema(before)).toBe(diffMysqlSchemas({ tables: [] }, before).sql);
  });
});

/** The engine's diff from a live database (through its driver adapter) to a datamodel: "" when none. */
async function liveDrift(provider: "sqlite" | "postgresql", factory: object, datamodel: string): Promise<string> {
  const engine = await openSchemaEngine(provider, factory);
  try {
    const r = await engine.diff({
      from: { tag: "schemaDatasource", files: [{ path: "schema.prisma", content: datamodel }], configDir: root },
      to: schemaFile(datamodel),
      script: true,
      exitCode: true,
      filters: { ...noFilters, externalTables: [provider === "postgresql" ? "public.qiao_migrations" : "qiao_migrations"] },
    });
    return r.exitCode === 0 ? "" : (r.stdout ?? `exit code ${r.exitCode}`);
  } finally {
    engine.free();
  }
}

describe("migrations build what schema.prisma says", () => {
  describe("sqlite", () => {
    let db: Db;
    let file: string;
    const factory = async () => {
      const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
      return new PrismaBetterSqlite3({ url: file });
    };
    beforeAll(async () => {
      file = sqliteFile();
      db = await openDb("sqlite", file);
      await applyMigrations(db, "sqlite");
    });
    afterAll(() => db?.$disconnect());

    it("no drift from the schema, and the check sees a missing index", async () => {
      expect(await liveDrift("sqlite", await factory(), schemas.sqlite)).toBe("");
      await db.$executeRawUnsafe('DROP INDEX "users_email_idx"');
      expect(await liveDrift("sqlite", await factory(), schemas.sqlite)).toMatch(/CREATE INDEX "users_email_idx"/);
      await db.$executeRawUnsafe('CREATE INDEX "users_email_idx" ON "users"("email")');
    });

    it("a generated follow-up migration reaches the grown schema", async () => {
      expect(await applyMigrations(db, "sqlite", [...migrations.sqlite, nextMigration.sqlite])).toEqual(["9000_drift_probe"]);
      expect(await liveDrift("sqlite", await factory(), grown.sqlite)).toBe("");
    });
  });

  describe("postgresql", () => {
    let db: Db;
    let target: Awaited<ReturnType<typeof createPgDatabase>>;
    const pools: CharAsTextPool[] = [];
    const factory = async () => {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      const pool = new CharAsTextPool({ connectionString: target.url, max: 2 });
      pools.push(pool);
      return new PrismaPg(pool);
    };
    beforeAll(async () => {
      target = await createPgDatabase();
      db = await openDb("postgresql", target.url);
      await applyMigrations(db, "postgresql");
    });
    afterAll(async () => {
      await db?.$disconnect();
      await Promise.all(pools.map((p) => p.end().catch(() => {})));
      await target?.drop();
    });

    it("no drift from the schema, and the check sees a changed default", async () => {
      expect(await liveDrift("postgresql", await factory(), schemas.postgresql)).toBe("");
      await db.$executeRawUnsafe(`ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 2`);
      expect(await liveDrift("postgresql", await factory(), schemas.postgresql)).toMatch(/"role" SET DEFAULT 1/);
      await db.$executeRawUnsafe(`ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 1`);
    });

    it("a generated follow-up migration reaches the grown schema", async () => {
      expect(await applyMigrations(db, "postgresql", [...migrations.postgresql, nextMigration.postgresql])).toEqual(["9000_drift_probe"]);
      expect(await liveDrift("postgresql", await factory(), grown.postgresql)).toBe("");
    });
  });

  describe("mysql", () => {
    let db: Db;
    let target: Awaited<ReturnType<typeof createMysqlDatabase>>;
    const introspect = async () => {
      const conn = await mysqlConnect(target.url);
      try {
        return await introspectMysql(conn, target.name);
      } finally {
        await conn.end();
      }
    };
    beforeAll(async () => {
      target = await createMysqlDatabase();
      db = await openDb("mysql", target.url);
      await applyMigrations(db, "mysql");
    });
    afterAll(async () => {
      await db?.$disconnect();
      await target?.drop();
    });

    it("information_schema matches what the generator says schema.prisma requires", async () => {
      const expected = mysqlSchemaFromText(schemas.mysql);
      const actual = await introspect();
      expect(mysqlSchemaDifferences(expected, actual)).toEqual([]);
      expect(actual.tables.map((t) => t.name).sort()).toEqual(expected.tables.map((t) => t.name).sort());
      for (const [table, options] of Object.entries(actual.tableOptions)) expect(options, table).toBe("InnoDB utf8mb4_unicode_ci");
    });

    it("the comparison catches a missing column, a changed default, a missing index and a foreign key rule", async () => {
      const expected = mysqlSchemaFromText(schemas.mysql);
      await db.$executeRawUnsafe("ALTER TABLE `tokens` DROP COLUMN `key_hint`");
      await db.$executeRawUnsafe("ALTER TABLE `users` ALTER COLUMN `role` SET DEFAULT 2");
      await db.$executeRawUnsafe("DROP INDEX `logs_type_created_at_idx` ON `logs`");
      await db.$executeRawUnsafe("ALTER TABLE `abilities` DROP FOREIGN KEY `abilities_channel_id_fkey`");
      await db.$executeRawUnsafe(
        "ALTER TABLE `abilities` ADD CONSTRAINT `abilities_channel_id_fkey` FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE",
      );
      const diffs = mysqlSchemaDifferences(expected, await introspect());
      expect(diffs).toEqual(
        expect.arrayContaining([
          "missing column tokens.key_hint",
          expect.stringMatching(/^column users\.role: default/),
          "missing index logs.logs_type_created_at_idx",
          expect.stringMatching(/^foreign key abilities\.abilities_channel_id_fkey/),
        ]),
      );
      expect(diffs).toHaveLength(4);
      // Back to the migrated state for the next test.
      await db.$executeRawUnsafe("ALTER TABLE `tokens` ADD COLUMN `key_hint` VARCHAR(191) NOT NULL DEFAULT '' AFTER `key_enc`");
      await db.$executeRawUnsafe("ALTER TABLE `users` ALTER COLUMN `role` SET DEFAULT 1");
      await db.$executeRawUnsafe("CREATE INDEX `logs_type_created_at_idx` ON `logs`(`type`, `created_at`)");
      await db.$executeRawUnsafe("ALTER TABLE `abilities` DROP FOREIGN KEY `abilities_channel_id_fkey`");
      await db.$executeRawUnsafe(
        "ALTER TABLE `abilities` ADD CONSTRAINT `abilities_channel_id_fkey` FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON DELETE CASCADE ON UPDATE CASCADE",
      );
      expect(mysqlSchemaDifferences(expected, await introspect())).toEqual([]);
    });

    it("a generated follow-up migration reaches the grown schema", async () => {
      expect(await applyMigrations(db, "mysql", [...migrations.mysql, nextMigration.mysql])).toEqual(["9000_drift_probe"]);
      expect(mysqlSchemaDifferences(mysqlSchemaFromText(grown.mysql), await introspect())).toEqual([]);
    });
  });
});
