// MySQL/MariaDB DDL from the Prisma schema, for the migration generator and the drift test.
//
// Why this exists: the WebAssembly schema engine (@prisma/schema-engine-wasm) diffs SQLite and
// PostgreSQL offline but has no MySQL connector, and the native engine needs a download. So the
// MySQL migrations are rendered here, following Prisma's own MySQL conventions (types, index and
// foreign key names, table options), so that the generated MySQL client finds what it expects.
//
// The schema is read through Prisma's DMMF, produced by the same schema parser (the
// `prisma_schema_build` WebAssembly module shipped inside the installed `prisma` CLI) that generated
// the clients. That is more robust than parsing schema.prisma with regexes (multi-line attributes,
// comments, @map/@@map, composite ids) and needs no extra package. The runtime never loads this
// module: migrations are plain SQL strings in lib/db/migrations.generated.ts.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// ---------------------------------------------------------------------------------------------
// DMMF (the subset this module reads)

export type DmmfField = {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum" | "unsupported";
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  isUnique: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  type: string;
  nativeType: [string, string[]] | null;
  default?: unknown;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
};
export type DmmfModel = {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
};
export type DmmfIndex = {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  isDefinedOnField: boolean;
  name?: string;
  dbName?: string;
  fields: { name: string; length?: number; sortOrder?: "asc" | "desc" }[];
};
export type Dmmf = {
  datamodel: { models: DmmfModel[]; enums: { name: string }[]; indexes: DmmfIndex[] };
};

type WasmExports = {
  memory: WebAssembly.Memory;
  get_dmmf(ptr: number, len: number): [number, number, number, number];
  __wbindgen_malloc(size: number, align: number): number;
  __wbindgen_free(ptr: number, len: number, align: number): void;
  __wbindgen_externrefs: WebAssembly.Table;
  __externref_table_dealloc(idx: number): void;
  __wbindgen_start(): void;
};

let schemaWasm: WasmExports | undefined;

/** Instantiates the Prisma CLI's schema parser (wasm-bindgen output) with a minimal glue layer. */
function prismaSchemaWasm(): WasmExports {
  if (schemaWasm) return schemaWasm;
  const require = createRequire(import.meta.url);
  let file: string;
  try {
    file = path.join(path.dirname(require.resolve("prisma/package.json")), "build/prisma_schema_build_bg.wasm");
  } catch {
    throw new Error("the `prisma` dev dependency is not installed: it is needed to read schema.prisma (npm install)");
  }
  const mod = new WebAssembly.Module(readFileSync(file));
  let ex: WasmExports | undefined;
  const decoder = new TextDecoder();
  const text = (ptr: number, len: number) => decoder.decode(new Uint8Array(ex!.memory.buffer, ptr >>> 0, len >>> 0));
  const glue: Record<string, (...args: number[]) => unknown> = {};
  for (const imp of WebAssembly.Module.imports(mod)) {
    const n = imp.name;
    // wasm-bindgen suffixes import names with a hash that changes between Prisma releases.
    if (n.startsWith("__wbg_Error_")) glue[n] = (p, l) => new Error(text(p, l));
    else if (n.startsWith("__wbg___wbindgen_throw_"))
      glue[n] = (p, l) => {
        throw new Error(text(p, l));
      };
    else if (n.startsWith("__wbg_set_message_"))
      glue[n] = (p, l) => {
        throw new Error(`prisma schema parser panicked: ${text(p, l)}`);
      };
    else if (n === "__wbindgen_init_externref_table") {
      glue[n] = () => {
        const t = ex!.__wbindgen_externrefs;
        const base = t.grow(4);
        t.set(0, undefined);
        t.set(base + 0, undefined);
        t.set(base + 1, null);
        t.set(base + 2, true);
        t.set(base + 3, false);
      };
    } else {
      throw new Error(`${file} needs an unknown import "${n}" (new prisma version?): update prismaSchemaWasm() in scripts/db/mysql-ddl.ts`);
    }
  }
  ex = new WebAssembly.Instance(mod, { __wbindgen_placeholder__: glue }).exports as unknown as WasmExports;
  ex.__wbindgen_start();
  schemaWasm = ex;
  return ex;
}

/** Parses and validates a Prisma schema; throws Prisma's own validation message when it is invalid. */
export function getDmmf(schema: string): Dmmf {
  const ex = prismaSchemaWasm();
  const input = new TextEncoder().encode(JSON.stringify({ prismaSchema: schema, noColor: true }));
  const ptr = ex.__wbindgen_malloc(input.length, 1) >>> 0;
  new Uint8Array(ex.memory.buffer, ptr, input.length).set(input);
  const [outPtr, outLen, errIdx, failed] = ex.get_dmmf(ptr, input.length);
  if (failed) {
    const err = ex.__wbindgen_externrefs.get(errIdx) as Error;
    ex.__externref_table_dealloc(errIdx);
    let message = err?.message ?? String(err);
    try {
      message = (JSON.parse(message) as { message: string }).message;
    } catch {
      // not JSON: keep it as it is
    }
    throw new Error(`invalid Prisma schema:\n${message}`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(new Uint8Array(ex.memory.buffer, outPtr >>> 0, outLen >>> 0))) as Dmmf;
  } finally {
    ex.__wbindgen_free(outPtr, outLen, 1);
  }
}

// ---------------------------------------------------------------------------------------------
// The MySQL schema a Prisma schema requires

export type MyColumn = {
  name: string;
  /** Upper-case MySQL type as Prisma renders it: INTEGER, BIGINT, VARCHAR(191), TEXT, DATETIME(3), … */
  type: string;
  nullable: boolean;
  /** The DEFAULT clause's expression as rendered, or null. */
  default: string | null;
  autoIncrement: boolean;
};
export type MyIndex = {
  name: string;
  unique: boolean;
  fulltext?: boolean;
  columns: string[];
  lengths?: (number | null)[];
  desc?: boolean[];
};
export type MyForeignKey = {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
};
export type MyTable = { name: string; columns: MyColumn[]; primaryKey: string[]; indexes: MyIndex[]; foreignKeys: MyForeignKey[] };
export type MySchema = { tables: MyTable[] };

/** MySQL's identifier limit; Prisma truncates generated constraint names to fit it. */
const MAX_IDENTIFIER = 64;

/** Prisma's default constraint name: `{table}_{columns}_{suffix}`, truncated to the identifier limit. */
export function constraintName(table: string, columns: string[], suffix: "key" | "idx" | "fkey"): string {
  let name = `${table}_${columns.join("_")}`;
  const room = MAX_IDENTIFIER - suffix.length - 1;
  if (name.length >= room) name = name.slice(0, room);
  return `${name}_${suffix}`;
}

const REFERENTIAL: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  NoAction: "NO ACTION",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

function columnType(model: string, f: DmmfField): string {
  const where = `${model}.${f.name}`;
  if (f.nativeType) {
    const [t, args] = f.nativeType;
    const a = args.length ? `(${args.join(",")})` : "";
    const simple: Record<string, string> = {
      Text: "TEXT",
      TinyText: "TINYTEXT",
      MediumText: "MEDIUMTEXT",
      LongText: "LONGTEXT",
      VarChar: `VARCHAR${a}`,
      Char: `CHAR${a}`,
      Int: "INTEGER",
      UnsignedInt: "INTEGER UNSIGNED",
      SmallInt: "SMALLINT",
      UnsignedSmallInt: "SMALLINT UNSIGNED",
      TinyInt: "TINYINT",
      UnsignedTinyInt: "TINYINT UNSIGNED",
      MediumInt: "MEDIUMINT",
      UnsignedMediumInt: "MEDIUMINT UNSIGNED",
      BigInt: "BIGINT",
      UnsignedBigInt: "BIGINT UNSIGNED",
      Double: "DOUBLE",
      Float: "FLOAT",
      Decimal: `DECIMAL${a}`,
      DateTime: `DATETIME${a}`,
      Timestamp: `TIMESTAMP${a}`,
      Date: "DATE",
      Time: `TIME${a}`,
      Json: "JSON",
      Blob: "BLOB",
      LongBlob: "LONGBLOB",
      MediumBlob: "MEDIUMBLOB",
      TinyBlob: "TINYBLOB",
      Binary: `BINARY${a}`,
      VarBinary: `VARBINARY${a}`,
      Bit: `BIT${a}`,
      Year: "YEAR",
    };
    if (!simple[t]) throw new Error(`${where}: @db.${t} is not supported by scripts/db/mysql-ddl.ts`);
    return simple[t];
  }
  const byType: Record<string, string> = {
    Int: "INTEGER",
    BigInt: "BIGINT",
    String: "VARCHAR(191)",
    Boolean: "BOOLEAN",
    DateTime: "DATETIME(3)",
    Float: "DOUBLE",
    Decimal: "DECIMAL(65,30)",
    Json: "JSON",
    Bytes: "LONGBLOB",
  };
  if (f.kind !== "scalar" || !byType[f.type]) {
    throw new Error(`${where}: ${f.kind} type ${f.type} is not supported by scripts/db/mysql-ddl.ts (extend columnType)`);
  }
  return byType[f.type];
}

/** Whether MySQL needs the parenthesised expression form for a default on this type (8.0.13+, MariaDB 10.2+). */
function needsExpressionDefault(type: string): boolean {
  return /TEXT|BLOB|JSON/.test(type);
}

function quoteString(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

function columnDefault(model: string, f: DmmfField, type: string): { default: string | null; autoIncrement: boolean } {
  if (!f.hasDefaultValue || f.default === undefined) return { default: null, autoIncrement: false };
  const d = f.default;
  if (d !== null && typeof d === "object" && "name" in d) {
    const fn = d as { name: string; args: unknown[] };
    switch (fn.name) {
      case "autoincrement":
        return { default: null, autoIncrement: true };
      case "now": {
        const p = /\((\d)\)/.exec(type)?.[1];
        return { default: p ? `CURRENT_TIMESTAMP(${p})` : "CURRENT_TIMESTAMP", autoIncrement: false };
      }
      case "dbgenerated":
        return { default: fn.args.length ? String(fn.args[0]) : null, autoIncrement: false };
      case "uuid":
      case "cuid":
      case "nanoid":
      case "ulid":
        return { default: null, autoIncrement: false }; // generated by the client
      default:
        throw new Error(`${model}.${f.name}: @default(${fn.name}()) is not supported by scripts/db/mysql-ddl.ts`);
    }
  }
  let lit: string;
  if (typeof d === "boolean") lit = d ? "true" : "false";
  else if (typeof d === "number") lit = String(d);
  else if (typeof d === "string") {
    if (["Int", "BigInt", "Float", "Decimal"].includes(f.type)) lit = d;
    else if (f.type === "DateTime") lit = quoteString(d.replace("T", " ").replace(/(\+00:00|Z)$/, ""));
    else lit = quoteString(d);
  } else {
    throw new Error(`${model}.${f.name}: default ${JSON.stringify(d)} is not supported by scripts/db/mysql-ddl.ts`);
  }
  return { default: needsExpressionDefault(type) ? `(${lit})` : lit, autoIncrement: false };
}

/** The tables, columns, keys, indexes and foreign keys a Prisma schema (mysql provider) requires. */
export function mysqlSchemaFromDmmf(dmmf: Dmmf, schemaText?: string): MySchema {
  if (schemaText && /@relation\([^)]*\bmap\s*:/.test(schemaText)) {
    // The DMMF does not carry a foreign key's custom name, so it could not be rendered.
    throw new Error("@relation(map: …) is not supported by scripts/db/mysql-ddl.ts: use Prisma's default foreign key names");
  }
  const { models, indexes } = dmmf.datamodel;
  const byName = new Map(models.map((m) => [m.name, m]));
  const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
  const colOf = (m: DmmfModel, field: string) => {
    const f = m.fields.find((x) => x.name === field);
    if (!f) throw new Error(`${m.name}: unknown field ${field}`);
    return f.dbName ?? f.name;
  };
  const tables: MyTable[] = [];
  for (const m of models) {
    const table = tableOf(m);
    const columns: MyColumn[] = [];
    for (const f of m.fields) {
      if (f.kind === "object") continue;
      if (f.isList) throw new Error(`${m.name}.${f.name}: scalar lists are not supported on MySQL`);
      const type = columnType(m.name, f);
      columns.push({ name: f.dbName ?? f.name, type, nullable: !f.isRequired, ...columnDefault(m.name, f, type) });
    }
    const mine = indexes.filter((i) => i.model === m.name);
    const id = mine.find((i) => i.type === "id");
    const primaryKey = id ? id.fields.map((x) => colOf(m, x.name)) : (m.primaryKey?.fields ?? []).map((x) => colOf(m, x));
    const tableIndexes: MyIndex[] = mine
      .filter((i) => i.type !== "id")
      .map((i) => {
        const cols = i.fields.map((x) => colOf(m, x.name));
        const idx: MyIndex = {
          name: i.dbName ?? constraintName(table, cols, i.type === "unique" ? "key" : "idx"),
          unique: i.type === "unique",
          columns: cols,
        };
        if (i.type === "fulltext") idx.fulltext = true;
        if (i.fields.some((x) => x.length)) idx.lengths = i.fields.map((x) => x.length ?? null);
        if (i.fields.some((x) => x.sortOrder === "desc")) idx.desc = i.fields.map((x) => x.sortOrder === "desc");
        return idx;
      });
    const foreignKeys: MyForeignKey[] = [];
    for (const f of m.fields) {
      if (f.kind !== "object" || !f.relationFromFields?.length) continue;
      const target = byName.get(f.type);
      if (!target) throw new Error(`${m.name}.${f.name}: unknown model ${f.type}`);
      const cols = f.relationFromFields.map((x) => colOf(m, x));
      const required = f.relationFromFields.every((x) => m.fields.find((y) => y.name === x)?.isRequired);
      foreignKeys.push({
        name: constraintName(table, cols, "fkey"),
        columns: cols,
        refTable: tableOf(target),
        refColumns: (f.relationToFields ?? []).map((x) => colOf(target, x)),
        onDelete: REFERENTIAL[f.relationOnDelete ?? (required ? "Restrict" : "SetNull")],
        onUpdate: REFERENTIAL[f.relationOnUpdate ?? "Cascade"],
      });
    }
    tables.push({ name: table, columns, primaryKey, indexes: tableIndexes, foreignKeys });
  }
  return { tables };
}

/** Parses a Prisma schema (mysql provider) and returns the MySQL schema it requires. */
export function mysqlSchemaFromText(schemaText: string): MySchema {
  return mysqlSchemaFromDmmf(getDmmf(schemaText), schemaText);
}

// ---------------------------------------------------------------------------------------------
// Rendering

const q = (id: string) => `\`${id.replace(/`/g, "``")}\``;

function renderColumn(c: MyColumn): string {
  let s = `${q(c.name)} ${c.type} ${c.nullable ? "NULL" : "NOT NULL"}`;
  if (c.default !== null) s += ` DEFAULT ${c.default}`;
  if (c.autoIncrement) s += " AUTO_INCREMENT";
  return s;
}

function indexColumns(i: MyIndex): string {
  return i.columns.map((c, n) => q(c) + (i.lengths?.[n] ? `(${i.lengths[n]})` : "") + (i.desc?.[n] ? " DESC" : "")).join(", ");
}

function renderIndexInline(i: MyIndex): string {
  const kind = i.unique ? "UNIQUE INDEX" : i.fulltext ? "FULLTEXT INDEX" : "INDEX";
  return `${kind} ${q(i.name)}(${indexColumns(i)})`;
}

function renderCreateTable(t: MyTable): string {
  const lines = t.columns.map(renderColumn);
  for (const i of t.indexes) lines.push(renderIndexInline(i));
  if (t.primaryKey.length) lines.push(`PRIMARY KEY (${t.primaryKey.map(q).join(", ")})`);
  return (
    `-- CreateTable\nCREATE TABLE ${q(t.name)} (\n${lines.map((l) => `    ${l}`).join(",\n")}\n)` +
    " ENGINE=InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;\n"
  );
}

function renderAddForeignKey(table: string, fk: MyForeignKey): string {
  return (
    `-- AddForeignKey\nALTER TABLE ${q(table)} ADD CONSTRAINT ${q(fk.name)} FOREIGN KEY (${fk.columns.map(q).join(", ")}) ` +
    `REFERENCES ${q(fk.refTable)}(${fk.refColumns.map(q).join(", ")}) ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate};\n`
  );
}

/** The full DDL creating a schema from nothing. */
export function renderMysqlSchema(schema: MySchema): string {
  return diffMysqlSchemas({ tables: [] }, schema).sql;
}

/**
 * The DDL turning `from` into `to`. Only additive changes are rendered (new tables, columns, indexes,
 * foreign keys; indexes may also be dropped or redefined). Anything else is listed in `unsupported`
 * and must be written by hand.
 */
export function diffMysqlSchemas(from: MySchema, to: MySchema): { sql: string; unsupported: string[] } {
  const parts: string[] = [];
  const fks: string[] = [];
  const unsupported: string[] = [];
  const old = new Map(from.tables.map((t) => [t.name, t]));
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const t of from.tables) {
    if (!to.tables.some((x) => x.name === t.name)) unsupported.push(`drop table ${t.name}`);
  }
  for (const t of to.tables) {
    const before = old.get(t.name);
    if (!before) {
      parts.push(renderCreateTable(t));
      for (const fk of t.foreignKeys) fks.push(renderAddForeignKey(t.name, fk));
      continue;
    }
    const alter: string[] = [];
    for (const c of before.columns) {
      const now = t.columns.find((x) => x.name === c.name);
      if (!now) unsupported.push(`drop column ${t.name}.${c.name}`);
      else if (!same(c, now)) unsupported.push(`change column ${t.name}.${c.name} (${renderColumn(c)} → ${renderColumn(now)})`);
    }
    for (const c of t.columns) {
      if (!before.columns.some((x) => x.name === c.name)) alter.push(`ADD COLUMN ${renderColumn(c)}`);
    }
    if (!same(before.primaryKey, t.primaryKey)) unsupported.push(`change primary key of ${t.name}`);
    const drops: string[] = [];
    const creates: string[] = [];
    for (const i of before.indexes) {
      const now = t.indexes.find((x) => x.name === i.name);
      if (!now || !same(i, now)) drops.push(`-- DropIndex\nDROP INDEX ${q(i.name)} ON ${q(t.name)};\n`);
    }
    for (const i of t.indexes) {
      const was = before.indexes.find((x) => x.name === i.name);
      if (!was || !same(i, was)) {
        const kind = i.unique ? "UNIQUE INDEX" : i.fulltext ? "FULLTEXT INDEX" : "INDEX";
        creates.push(`-- CreateIndex\nCREATE ${kind} ${q(i.name)} ON ${q(t.name)}(${indexColumns(i)});\n`);
      }
    }
    for (const fk of before.foreignKeys) {
      const now = t.foreignKeys.find((x) => x.name === fk.name);
      if (!now) unsupported.push(`drop foreign key ${fk.name}`);
      else if (!same(fk, now)) unsupported.push(`change foreign key ${fk.name}`);
    }
    for (const fk of t.foreignKeys) {
      if (!before.foreignKeys.some((x) => x.name === fk.name)) fks.push(renderAddForeignKey(t.name, fk));
    }
    parts.push(...drops);
    if (alter.length) parts.push(`-- AlterTable\nALTER TABLE ${q(t.name)} ${alter.join(",\n    ")};\n`);
    parts.push(...creates);
  }
  return { sql: [...parts, ...fks].join("\n"), unsupported };
}
