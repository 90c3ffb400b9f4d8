// The runtime migrator (lib/db/migrate.ts) on SQLite, PostgreSQL and MariaDB: fresh databases,
// idempotence, every model's round trip through the generated client, locking between concurrent
// starts, and refusal of tampered or unknown history. PostgreSQL and MariaDB must be running on
// loopback (see tests/db/helpers.ts): if one is down these tests fail, they never skip.
// @main-database none (every database here is named; scripts/database-tests.mjs).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db, type DbKind } from "@/lib/db";
import { applyMigrations, MIGRATIONS_TABLE, splitSqlStatements, type Migration } from "@/lib/db/migrate";
import { migrations } from "@/lib/db/migrations.generated";
import { getDmmf, type DmmfField, type DmmfModel } from "@/scripts/db/mysql-ddl";
import { currentSchemas } from "@/scripts/db-migration";
import { createMysqlDatabase, createPgDatabase, sqliteFile, type Throwaway } from "./helpers";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const KINDS: DbKind[] = ["sqlite", "postgresql", "mysql"];

async function throwaway(kind: DbKind): Promise<Throwaway> {
  if (kind === "postgresql") return createPgDatabase();
  if (kind === "mysql") return createMysqlDatabase();
  const file = sqliteFile();
  return { name: file, url: file, drop: async () => {} };
}

/** The placeholder for the n-th (1-based) parameter of a raw query. */
const ph = (kind: DbKind, n: number) => (kind === "postgresql" ? `$${n}` : "?");

async function appliedRows(db: Db): Promise<{ id: string; checksum: string }[]> {
  return db.$queryRawUnsafe(`SELECT id, checksum FROM ${MIGRATIONS_TABLE} ORDER BY id`);
}

// ---------------------------------------------------------------------------------------------
// Values for every field of every model, read from the schema itself so new fields are covered.

let models: DmmfModel[] = [];

const delegate = (db: Db, m: DmmfModel): Any => (db as Any)[m.name[0].toLowerCase() + m.name.slice(1)];
const scalars = (m: DmmfModel) => m.fields.filter((f) => f.kind === "scalar" || f.kind === "enum");
const pkFields = (m: DmmfModel) => m.primaryKey?.fields ?? m.fields.filter((f) => f.isId).map((f) => f.name);
const fkFields = (m: DmmfModel) => new Set(m.fields.flatMap((f) => (f.kind === "object" ? (f.relationFromFields ?? []) : [])));
const isText = (f: DmmfField) => f.nativeType?.[0] === "Text";

/** A value for a field that differs from its default and from the other variants. */
function valueFor(m: DmmfModel, f: DmmfField, variant: number): unknown {
  const n = m.fields.indexOf(f) + 1;
  switch (f.type) {
    case "Int":
      return 700_000 + variant * 100_000 + n;
    case "BigInt":
      // Beyond 2^53 (no float could hold it), negative beyond -2^31, and beyond 2^32.
      if (variant === 0) return 9_007_199_254_740_993n + BigInt(n);
      if (variant === 1) return -(2n ** 33n) - BigInt(n);
      return 2n ** 40n + BigInt(variant * 1000 + n);
    case "Float":
      return variant === 1 ? -0.125 - n : 1234.5678 + variant * 1000 + n;
    case "Boolean":
      // Variant 0 is never the default; variant 1 flips it.
      return (f.default !== true) !== (variant === 1);
    case "DateTime":
      return new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 123) + variant * 86_400_000 + n * 1000);
    case "String":
      if (isText(f)) return `v${variant}-${f.name}-${"桥🌉 long text, ".repeat(40 + variant)}`; // > 191 characters
      return `v${variant}-${m.name}-${f.name}-桥🌉`;
    default:
      throw new Error(`${m.name}.${f.name}: type ${f.type} has no test value: extend valueFor() in tests/db/migrations.test.ts`);
  }
}

/** The value a literal @default gives a field when read back. */
function defaultValue(f: DmmfField): unknown {
  const d = f.default;
  if (f.type === "BigInt") return BigInt(d as string | number);
  if (f.type === "Int" || f.type === "Float") return Number(d);
  if (f.type === "DateTime") return new Date(String(d));
  return d;
}

const hasLiteralDefault = (f: DmmfField) =>
  f.hasDefaultValue && f.default !== undefined && (f.default === null || typeof f.default !== "object");

/** Models ordered so that every relation's target comes before the model holding its foreign key. */
function dependencyOrder(all: DmmfModel[]): DmmfModel[] {
  const out: DmmfModel[] = [];
  const visit = (m: DmmfModel, path: string[]) => {
    if (out.includes(m)) return;
    if (path.includes(m.name)) throw new Error(`relation cycle ${path.join(" → ")}`);
    for (const f of m.fields) {
      if (f.kind === "object" && f.relationFromFields?.length) visit(all.find((x) => x.name === f.type)!, [...path, m.name]);
    }
    out.push(m);
  };
  for (const m of all) visit(m, []);
  return out;
}

/** Creates the records `m`'s required relations point at; returns the foreign key values. */
async function parentsFor(db: Db, m: DmmfModel, variant: number): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const f of m.fields) {
    if (f.kind !== "object" || !f.relationFromFields?.length) continue;
    const target = models.find((x) => x.name === f.type)!;
    // Two models may share a parent (abilities and channel_keys both belong to a channel): the
    // second reuses the row the first created.
    const parent = await parentRow(db, target, variant + 10);
    f.relationFromFields.forEach((from, i) => (values[from] = parent[f.relationToFields![i]]));
  }
  return values;
}

/** The parent row of a variant: the one already there, else created. */
async function parentRow(db: Db, m: DmmfModel, variant: number): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  for (const f of scalars(m)) data[f.name] = valueFor(m, f, variant);
  const existing = await delegate(db, m).findUnique({ where: whereUnique(m, data) });
  return existing ? pick(existing, m) : createFull(db, m, variant);
}

async function createFull(db: Db, m: DmmfModel, variant: number): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = await parentsFor(db, m, variant);
  for (const f of scalars(m)) if (!(f.name in data)) data[f.name] = valueFor(m, f, variant);
  await delegate(db, m).create({ data });
  return data;
}

function whereUnique(m: DmmfModel, row: Record<string, unknown>): Record<string, unknown> {
  const pk = pkFields(m);
  if (pk.length === 1) return { [pk[0]]: row[pk[0]] };
  return { [m.primaryKey?.name ?? pk.join("_")]: Object.fromEntries(pk.map((k) => [k, row[k]])) };
}

function pick(row: Record<string, unknown>, m: DmmfModel): Record<string, unknown> {
  return Object.fromEntries(scalars(m).map((f) => [f.name, row[f.name]]));
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  // The MySQL derivation carries @db.Text, which tells which strings must hold long values.
  models = getDmmf((await currentSchemas()).mysql).datamodel.models;
});

describe("splitSqlStatements", () => {
  it("splits the engine's output and drops comment-only chunks", () => {
    const sql =
      '-- CreateTable\nCREATE TABLE "a" (\n  "x" TEXT NOT NULL DEFAULT \'\'\n);\n\n-- CreateIndex\nCREATE INDEX "a_x_idx" ON "a"("x");\n-- trailing\n';
    expect(splitSqlStatements(sql, "postgresql")).toEqual([
      '-- CreateTable\nCREATE TABLE "a" (\n  "x" TEXT NOT NULL DEFAULT \'\'\n)',
      '-- CreateIndex\nCREATE INDEX "a_x_idx" ON "a"("x")',
    ]);
  });

  it("keeps semicolons inside strings, identifiers, comments and bodies", () => {
    expect(splitSqlStatements("INSERT INTO t VALUES ('a;b', 'it''s;'); /* x; y */ SELECT \"c;d\" FROM `e;f`", "sqlite")).toEqual([
      "INSERT INTO t VALUES ('a;b', 'it''s;')",
      '/* x; y */ SELECT "c;d" FROM `e;f`',
    ]);
    expect(splitSqlStatements("SELECT 'a\\';b'; SELECT 2", "mysql")).toEqual(["SELECT 'a\\';b'", "SELECT 2"]);
    expect(
      splitSqlStatements("CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; SELECT $$;$$", "postgresql"),
    ).toEqual(["CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql", "SELECT $$;$$"]);
    expect(
      splitSqlStatements(
        "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET x = 1; DELETE FROM u; END; PRAGMA foreign_keys=ON;",
        "sqlite",
      ),
    ).toEqual(["CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET x = 1; DELETE FROM u; END", "PRAGMA foreign_keys=ON"]);
  });

  it("splits every built-in migration into statements", () => {
    for (const kind of KINDS) {
      for (const m of migrations[kind]) {
        const parts = splitSqlStatements(m.sql, kind);
        expect(parts.length).toBeGreaterThan(0);
        for (const p of parts) expect(p).not.toMatch(/;\s*$/);
      }
    }
  });
});

for (const kind of KINDS) {
  describe(`migrations on ${kind}`, () => {
    let target: Throwaway | undefined;
    let db: Db;
    const ids = migrations[kind].map((m) => m.id);

    beforeAll(async () => {
      target = await throwaway(kind);
      db = await openDb(kind, target.url);
    });
    afterAll(async () => {
      await db?.$disconnect();
      await target?.drop();
    });

    it("migrates a fresh database, then finds nothing to do", async () => {
      expect(ids.length).toBeGreaterThan(0);
      expect(await applyMigrations(db, kind)).toEqual(ids);
      expect(await appliedRows(db)).toEqual(migrations[kind].map(({ id, checksum }) => ({ id, checksum })));
      const started = performance.now();
      expect(await applyMigrations(db, kind)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(2000); // one query; generous for a loaded CI machine
    });

    it("round-trips every model with a non-default value in every field", async () => {
      expect(models.length).toBeGreaterThan(5);
      for (const m of dependencyOrder(models)) {
        const d = delegate(db, m);
        const data = await createFull(db, m, 0);
        const where = whereUnique(m, data);
        expect(pick(await d.findUnique({ where }), m), `${m.name} after create`).toEqual(data);

        const keys = new Set([...pkFields(m), ...fkFields(m)]);
        const changes = Object.fromEntries(
          scalars(m)
            .filter((f) => !keys.has(f.name))
            .map((f) => [f.name, valueFor(m, f, 1)]),
        );
        await d.update({ where, data: changes });
        expect(pick(await d.findUnique({ where }), m), `${m.name} after update`).toEqual({ ...data, ...changes });

        await d.delete({ where });
        expect(await d.findUnique({ where }), `${m.name} after delete`).toBeNull();
      }
    });

    it("fills every @default the database is responsible for", async () => {
      for (const m of dependencyOrder(models)) {
        const data: Record<string, unknown> = await parentsFor(db, m, 2);
        for (const f of scalars(m)) {
          if (f.isRequired && !f.hasDefaultValue && !(f.name in data)) data[f.name] = valueFor(m, f, 2);
        }
        const created = await delegate(db, m).create({ data });
        const row = await delegate(db, m).findUnique({ where: whereUnique(m, created) });
        for (const f of scalars(m)) {
          if (f.name in data) continue;
          if (hasLiteralDefault(f)) expect(row[f.name], `${m.name}.${f.name}`).toEqual(defaultValue(f));
          else if (!f.isRequired && !f.hasDefaultValue) expect(row[f.name], `${m.name}.${f.name}`).toBeNull();
          else if ((f.default as { name?: string })?.name === "autoincrement") expect(row[f.name]).toBeGreaterThan(0);
        }
      }
    });

    it("deletes a channel's abilities with it (onDelete: Cascade)", async () => {
      const channel = models.find((m) => m.name === "Channel")!;
      const ability = models.find((m) => m.name === "Ability")!;
      const ch = await createFull(db, channel, 0);
      for (const variant of [0, 1]) {
        const row: Record<string, unknown> = { channel_id: ch.id };
        for (const f of scalars(ability)) if (!(f.name in row)) row[f.name] = valueFor(ability, f, variant);
        await delegate(db, ability).create({ data: row });
      }
      expect(await delegate(db, ability).count({ where: { channel_id: ch.id } })).toBe(2);
      await delegate(db, channel).delete({ where: { id: ch.id } });
      expect(await delegate(db, ability).count({ where: { channel_id: ch.id } })).toBe(0);
    });

    it("refuses to start when an applied migration was edited", async () => {
      const [first] = migrations[kind];
      await db.$executeRawUnsafe(
        `UPDATE ${MIGRATIONS_TABLE} SET checksum = ${ph(kind, 1)} WHERE id = ${ph(kind, 2)}`,
        "0".repeat(64),
        first.id,
      );
      await expect(applyMigrations(db, kind)).rejects.toThrow(`"${first.id}" was changed after it was applied`);
      await db.$executeRawUnsafe(
        `UPDATE ${MIGRATIONS_TABLE} SET checksum = ${ph(kind, 1)} WHERE id = ${ph(kind, 2)}`,
        first.checksum,
        first.id,
      );
      // …and a migration applied by a newer version.
      await db.$executeRawUnsafe(`INSERT INTO ${MIGRATIONS_TABLE} (id, checksum) VALUES ('9999_future', 'x')`);
      await expect(applyMigrations(db, kind)).rejects.toThrow(/"9999_future" applied, which this version of Qiao does not know/);
      await db.$executeRawUnsafe(`DELETE FROM ${MIGRATIONS_TABLE} WHERE id = '9999_future'`);
      expect(await applyMigrations(db, kind)).toEqual([]);
    });

    if (kind === "sqlite") {
      it("rebuilds a parent table the engine's way without cascading into its children, and checks foreign keys", async () => {
        const channel = models.find((m) => m.name === "Channel")!;
        const ability = models.find((m) => m.name === "Ability")!;
        const ch = await createFull(db, channel, 3);
        const row: Record<string, unknown> = { channel_id: ch.id };
        for (const f of scalars(ability)) if (!(f.name in row)) row[f.name] = valueFor(ability, f, 3);
        await delegate(db, ability).create({ data: row });
        // What the schema engine writes when a SQLite table must change ("RedefineTables").
        const [table] = await db.$queryRawUnsafe<{ sql: string }[]>(
          "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'channels'",
        );
        const indexes = await db.$queryRawUnsafe<{ sql: string }[]>(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'channels' AND sql IS NOT NULL",
        );
        const rebuild = [
          "PRAGMA defer_foreign_keys=ON;",
          "PRAGMA foreign_keys=OFF;",
          `${table.sql.replace(/^CREATE TABLE "channels"/, 'CREATE TABLE "new_channels"')};`,
          'INSERT INTO "new_channels" SELECT * FROM "channels";',
          'DROP TABLE "channels";',
          'ALTER TABLE "new_channels" RENAME TO "channels";',
          ...indexes.map((i) => `${i.sql};`),
          "PRAGMA foreign_keys=ON;",
          "PRAGMA defer_foreign_keys=OFF;",
        ].join("\n");
        const list = [...migrations.sqlite, { id: "9100_rebuild", sql: rebuild, checksum: "r" }];
        expect(await applyMigrations(db, kind, list)).toEqual(["9100_rebuild"]);
        expect(await delegate(db, ability).count({ where: { channel_id: ch.id } })).toBe(1);
        const [fk] = await db.$queryRawUnsafe<{ foreign_keys: unknown }[]>("PRAGMA foreign_keys");
        expect(Number(fk.foreign_keys)).toBe(1); // enforced again afterwards
        await delegate(db, channel).delete({ where: { id: ch.id } });
        expect(await delegate(db, ability).count({ where: { channel_id: ch.id } })).toBe(0);

        const orphan = {
          id: "9101_orphan",
          sql: `INSERT INTO "abilities" ("group", "model", "channel_id") VALUES ('g', 'm', 999999999);`,
          checksum: "o",
        };
        await expect(applyMigrations(db, kind, [...list, orphan])).rejects.toThrow(
          /9101_orphan failed \(rolled back\): it leaves 1 row\(s\) breaking foreign keys/,
        );
        expect(await delegate(db, ability).count({ where: { channel_id: 999999999 } })).toBe(0);
        await db.$executeRawUnsafe(`DELETE FROM ${MIGRATIONS_TABLE} WHERE id = '9100_rebuild'`);
      });
    }

    it("applies a later migration alone; a failing one is not recorded (and rolled back where DDL is transactional)", async () => {
      const probe: Migration = { id: "9000_probe", sql: "CREATE TABLE qiao_probe (id INTEGER NOT NULL PRIMARY KEY);\n", checksum: "p" };
      const list = [...migrations[kind], probe];
      expect(await applyMigrations(db, kind, list)).toEqual(["9000_probe"]);
      expect(await applyMigrations(db, kind, list)).toEqual([]);

      const bad: Migration = {
        id: "9001_bad",
        sql: "CREATE TABLE qiao_probe_bad (id INTEGER NOT NULL PRIMARY KEY);\nINSERT INTO qiao_no_such_table VALUES (1);\n",
        checksum: "b",
      };
      await expect(applyMigrations(db, kind, [...list, bad])).rejects.toThrow(/9001_bad/);
      expect((await appliedRows(db)).map((r) => r.id)).not.toContain("9001_bad");
      const exists = async () => {
        try {
          await db.$queryRawUnsafe("SELECT COUNT(*) AS n FROM qiao_probe_bad");
          return true;
        } catch {
          return false;
        }
      };
      expect(await exists()).toBe(kind === "mysql"); // MySQL commits DDL statement by statement
      if (kind === "mysql") await db.$executeRawUnsafe("DROP TABLE qiao_probe_bad");
      await db.$executeRawUnsafe("DROP TABLE qiao_probe");
      await db.$executeRawUnsafe(`DELETE FROM ${MIGRATIONS_TABLE} WHERE id = '9000_probe'`);
    });
  });
}

describe("concurrent starts", () => {
  for (const kind of ["postgresql", "mysql"] as const) {
    it(`two clients migrating a fresh ${kind} database at once both succeed, and each migration runs once`, async () => {
      const target = await throwaway(kind);
      const [a, b] = [await openDb(kind, target.url), await openDb(kind, target.url)];
      try {
        const [ra, rb] = await Promise.all([applyMigrations(a, kind), applyMigrations(b, kind)]);
        expect([...ra, ...rb].sort()).toEqual(migrations[kind].map((m) => m.id));
        expect((await appliedRows(a)).map((r) => r.id)).toEqual(migrations[kind].map((m) => m.id));
        expect(await applyMigrations(b, kind)).toEqual([]);
      } finally {
        await a.$disconnect();
        await b.$disconnect();
        await target.drop();
      }
    });
  }

  it("two processes migrating a fresh SQLite file at once both succeed, and each migration runs once", async () => {
    const file = sqliteFile();
    const fixture = fileURLToPath(new URL("./fixtures/apply-sqlite.ts", import.meta.url));
    const run = () => promisify(execFile)(process.execPath, ["--import", "tsx", fixture, file], { env: process.env, timeout: 60_000 });
    const outs = await Promise.all([run(), run()]);
    const applied = outs.flatMap((o) => JSON.parse(o.stdout) as string[]);
    expect(applied.sort()).toEqual(migrations.sqlite.map((m) => m.id));
    const db = await openDb("sqlite", file);
    try {
      expect((await appliedRows(db)).map((r) => r.id)).toEqual(migrations.sqlite.map((m) => m.id));
    } finally {
      await db.$disconnect();
    }
  });
});
