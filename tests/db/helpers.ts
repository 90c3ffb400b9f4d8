// Throwaway databases on the loopback services, and MySQL introspection, for the tests in tests/db.
// A service that is down fails the test with a message saying how to start it: never a skip.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as mariadb from "mariadb";
import pg from "pg";
import type { MyColumn, MyForeignKey, MyIndex, MySchema, MyTable } from "@/scripts/db/mysql-ddl";
import { MIGRATIONS_TABLE } from "@/lib/db/migrate";

export const PG_ADMIN_URL = process.env.QIAO_TEST_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
export const MYSQL_ADMIN_URL = process.env.QIAO_TEST_MYSQL_URL || "mysql://root@127.0.0.1:3306/test";

export type Throwaway = { name: string; url: string; drop(): Promise<void> };

const randomName = () => `qiao_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export async function createPgDatabase(): Promise<Throwaway> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_ADMIN_URL} (${(e as Error).message}). These tests need it: start it with ` +
        "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` or set QIAO_TEST_PG_URL.",
    );
  }
  const name = randomName();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDb(PG_ADMIN_URL, name),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

function mysqlConfig(url: string): mariadb.ConnectionConfig {
  const u = new URL(url.replace(/^mysql:/i, "mariadb:"));
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.replace(/^\//, "") || undefined,
    connectTimeout: 5000,
    allowPublicKeyRetrieval: true,
  };
}

export async function mysqlConnect(url: string): Promise<mariadb.Connection> {
  try {
    return await mariadb.createConnection(mysqlConfig(url));
  } catch (e) {
    throw new Error(
      `MariaDB/MySQL is not reachable at ${url} (${(e as Error).message}). These tests need it: start it with ` +
        "`start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd` or set QIAO_TEST_MYSQL_URL.",
    );
  }
}

export async function createMysqlDatabase(): Promise<Throwaway> {
  const admin = await mysqlConnect(MYSQL_ADMIN_URL);
  const name = randomName();
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDb(MYSQL_ADMIN_URL, name),
    async drop() {
      const c = await mysqlConnect(MYSQL_ADMIN_URL);
      try {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}

export function sqliteFile(): string {
  const dir = mkdtempSync(path.join(process.env.DATA_DIR || os.tmpdir(), "migrations-"));
  return path.join(dir, "qiao.db");
}

/**
 * A pg pool for the schema engine's describer: @prisma/adapter-pg cannot read PostgreSQL's internal
 * `"char"` type (pg_constraint.contype, …), which the engine selects; it arrives as text instead.
 */
export class CharAsTextPool extends pg.Pool {
  // Every call shape of pg's overloads ends here; only the result is adjusted.
  override async query(config: unknown, values?: unknown) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result: any = await (super.query as any)(config, values);
    for (const f of result?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// MySQL introspection, in the shape scripts/db/mysql-ddl.ts describes a schema

type Row = Record<string, unknown>;
const s = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Reads tables, columns, keys, indexes and foreign keys of a MariaDB/MySQL database. */
export async function introspectMysql(conn: mariadb.Connection, db: string): Promise<MySchema & { tableOptions: Record<string, string> }> {
  const q = (sql: string) => conn.query<Row[]>(sql, [db]);
  const tables = (
    await q(
      "SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    )
  ).filter((t) => t.TABLE_NAME !== MIGRATIONS_TABLE);
  const columns = await q(
    "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION",
  );
  const stats = await q(
    "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, SUB_PART, COLLATION, INDEX_TYPE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
  );
  const fkCols = await q(
    "SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
  );
  const fkRules = await q(
    "SELECT CONSTRAINT_NAME, TABLE_NAME, UPDATE_RULE, DELETE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ?",
  );
  const out: MyTable[] = [];
  const tableOptions: Record<string, string> = {};
  for (const t of tables) {
    const name = String(t.TABLE_NAME);
    tableOptions[name] = `${t.ENGINE} ${t.TABLE_COLLATION}`;
    const cols: MyColumn[] = columns
      .filter((c) => c.TABLE_NAME === name)
      .map((c) => ({
        name: String(c.COLUMN_NAME),
        type: String(c.COLUMN_TYPE),
        nullable: c.IS_NULLABLE === "YES",
        default: s(c.COLUMN_DEFAULT),
        autoIncrement: /auto_increment/i.test(String(c.EXTRA)),
      }));
    const mine = stats.filter((x) => x.TABLE_NAME === name);
    const indexNames = [...new Set(mine.map((x) => String(x.INDEX_NAME)))];
    const primaryKey = mine.filter((x) => x.INDEX_NAME === "PRIMARY").map((x) => String(x.COLUMN_NAME));
    const indexes: MyIndex[] = indexNames
      .filter((n) => n !== "PRIMARY")
      .map((n) => {
        const parts = mine.filter((x) => x.INDEX_NAME === n);
        const idx: MyIndex = { name: n, unique: Number(parts[0].NON_UNIQUE) === 0, columns: parts.map((x) => String(x.COLUMN_NAME)) };
        if (parts[0].INDEX_TYPE === "FULLTEXT") idx.fulltext = true;
        if (parts.some((x) => x.SUB_PART !== null)) idx.lengths = parts.map((x) => (x.SUB_PART === null ? null : Number(x.SUB_PART)));
        if (parts.some((x) => x.COLLATION === "D")) idx.desc = parts.map((x) => x.COLLATION === "D");
        return idx;
      });
    const fkNames = [...new Set(fkCols.filter((x) => x.TABLE_NAME === name).map((x) => String(x.CONSTRAINT_NAME)))];
    const foreignKeys: MyForeignKey[] = fkNames.map((n) => {
      const parts = fkCols.filter((x) => x.TABLE_NAME === name && x.CONSTRAINT_NAME === n);
      const rule = fkRules.find((x) => x.TABLE_NAME === name && x.CONSTRAINT_NAME === n);
      return {
        name: n,
        columns: parts.map((x) => String(x.COLUMN_NAME)),
        refTable: String(parts[0].REFERENCED_TABLE_NAME),
        refColumns: parts.map((x) => String(x.REFERENCED_COLUMN_NAME)),
        onDelete: String(rule?.DELETE_RULE),
        onUpdate: String(rule?.UPDATE_RULE),
      };
    });
    out.push({ name, columns: cols, primaryKey, indexes, foreignKeys });
  }
  return { tables: out, tableOptions };
}

/** information_schema's spelling of a type the generator renders (BOOLEAN is tinyint(1), …). */
function normalizeType(type: string): string {
  const t = type
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^integer\b/, "int");
  if (t === "boolean" || t === "bool") return "tinyint(1)";
  if (t.startsWith("tinyint(1)")) return t;
  return t.replace(/^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/, "$1"); // display widths (MariaDB, MySQL 5.7)
}

/** A default as a comparable value: the literal's text, or a lower-case expression. */
function normalizeDefault(d: string | null, type: string): string | null {
  if (d === null || d === "NULL") return null;
  let v = d.trim();
  while (v.startsWith("(") && v.endsWith(")")) v = v.slice(1, -1).trim(); // expression form ('')
  v = v.replace(/^_utf8mb4\\?'/, "'").replace(/\\'$/, "'"); // MySQL 8 prints expression defaults this way
  if (v.startsWith("'") && v.endsWith("'")) return `s:${v.slice(1, -1).replace(/''/g, "'").replace(/\\\\/g, "\\")}`;
  if (/^true$/i.test(v)) return "n:1";
  if (/^false$/i.test(v)) return "n:0";
  if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v)) return `n:${String(Number(v))}`;
  if (/^current_timestamp/i.test(v)) return v.toLowerCase().replace("()", "");
  // MySQL 8 prints plain string defaults unquoted.
  return /char|text|enum|set/i.test(type) ? `s:${v}` : v.toLowerCase();
}

/**
 * Every difference between the schema the generator requires (`expected`) and a database's
 * (`actual`), as readable lines; empty when they agree.
 */
export function mysqlSchemaDifferences(expected: MySchema, actual: MySchema): string[] {
  const diffs: string[] = [];
  const norm = (c: MyColumn) => ({
    type: normalizeType(c.type),
    nullable: c.nullable,
    default: normalizeDefault(c.default, c.type),
    autoIncrement: c.autoIncrement,
  });
  const fkIndexNames = new Set(expected.tables.flatMap((t) => t.foreignKeys.map((f) => f.name)));
  for (const t of expected.tables) {
    const a = actual.tables.find((x) => x.name === t.name);
    if (!a) {
      diffs.push(`missing table ${t.name}`);
      continue;
    }
    for (const c of t.columns) {
      const ac = a.columns.find((x) => x.name === c.name);
      if (!ac) {
        diffs.push(`missing column ${t.name}.${c.name}`);
        continue;
      }
      const [e, g] = [norm(c), norm(ac)];
      for (const k of Object.keys(e) as (keyof typeof e)[]) {
        if (e[k] !== g[k]) diffs.push(`column ${t.name}.${c.name}: ${k} is ${JSON.stringify(g[k])}, schema wants ${JSON.stringify(e[k])}`);
      }
    }
    for (const c of a.columns) if (!t.columns.some((x) => x.name === c.name)) diffs.push(`extra column ${t.name}.${c.name}`);
    // Column order is not compared: ALTER TABLE … ADD COLUMN appends, and nothing depends on the order.
    if (t.primaryKey.join(",") !== a.primaryKey.join(",")) {
      diffs.push(`primary key of ${t.name} is (${a.primaryKey.join(", ")}), schema wants (${t.primaryKey.join(", ")})`);
    }
    const idx = (i: MyIndex) => JSON.stringify({ u: i.unique, f: !!i.fulltext, c: i.columns, l: i.lengths ?? null, d: i.desc ?? null });
    for (const i of t.indexes) {
      const ai = a.indexes.find((x) => x.name === i.name);
      if (!ai) diffs.push(`missing index ${t.name}.${i.name}`);
      else if (idx(i) !== idx(ai)) diffs.push(`index ${t.name}.${i.name} is ${idx(ai)}, schema wants ${idx(i)}`);
    }
    for (const i of a.indexes) {
      // InnoDB creates an index named after a foreign key when no other index covers its columns.
      if (!t.indexes.some((x) => x.name === i.name) && !fkIndexNames.has(i.name)) diffs.push(`extra index ${t.name}.${i.name}`);
    }
    for (const f of t.foreignKeys) {
      const af = a.foreignKeys.find((x) => x.name === f.name);
      if (!af) diffs.push(`missing foreign key ${t.name}.${f.name}`);
      else if (JSON.stringify(f) !== JSON.stringify(af))
        diffs.push(`foreign key ${t.name}.${f.name} is ${JSON.stringify(af)}, schema wants ${JSON.stringify(f)}`);
    }
    for (const f of a.foreignKeys) if (!t.foreignKeys.some((x) => x.name === f.name)) diffs.push(`extra foreign key ${t.name}.${f.name}`);
  }
  for (const a of actual.tables) if (!expected.tables.some((x) => x.name === a.name)) diffs.push(`extra table ${a.name}`);
  return diffs;
}
