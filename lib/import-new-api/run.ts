// Imports a new-api / one-api install into Qiao's database, or (by default) only says what it
// would do. One walk serves both: each table is read in id order in batches, each row decided
// (lib/import-new-api/tables.ts), and with `apply` each batch is written in one transaction
// together with its import_map rows (logs: with the import_cursors row). A row already in
// import_map is skipped, so a second run writes nothing and an interrupted one resumes where its
// last committed batch ended. Conflicts and rows that cannot be mapped are reported, never written.
import type { Db } from "@/lib/db";
import type { DirectDb, Row, Statement } from "@/lib/db/direct";
import { big, bool, int, str } from "@/lib/db/num";
import { logInsertStatements, type LogRow } from "@/lib/logs/insert";
import { LOG_TYPE } from "@/lib/logs/write";
import { publishInvalidation } from "@/lib/cache/bus";
import { rootUsesDefaultPassword } from "@/lib/users/root-account";
import { defaultRaw, isOptionKey, parseOption } from "@/lib/options/registry";
import {
  countRows,
  type Flavor,
  ident,
  openSource,
  parseSourceDsn,
  readBatch,
  readSourceSchema,
  type SourceDb,
  type SourceSchema,
  type SourceTable,
  sourceId,
} from "@/lib/import-new-api/source";
import {
  type IdMaps,
  IMPORT_MSG,
  type ImportContext,
  MAPPED_TABLES,
  type MappedTable,
  type SumName,
  TABLE_SPECS,
  type TableSpec,
} from "@/lib/import-new-api/tables";

export type ImportOptions = {
  /** The source: a SQLite path, a mysql:// or postgres:// URL, or new-api's SQL_DSN as written. */
  from: string;
  /** Write; without it nothing is written (the dry run). */
  apply?: boolean;
  /** Also import the logs table (it may hold tens of millions of rows). */
  logs?: boolean;
  /** Rows per batch (per transaction); logs use logBatch. */
  batch?: number;
  logBatch?: number;
  /** Stops (as if interrupted) after this many committed batches: tests of the resume. */
  stopAfterBatches?: number;
  onProgress?: (p: ImportProgress) => void;
};

export type ImportProgress = { table: string; done: number; total: number; startedAt: number };

export type TableReport = {
  table: string;
  /** Rows in the source. */
  rows: number;
  /** Imported before this run (import_map or the logs cursor). */
  already: number;
  /** Imported by this run (a dry run: would be). */
  imported: number;
  conflicts: number;
  unmappable: number;
  /** How long this run spent on the table. */
  seconds: number;
};

export type Problem = { table: string; id: number; reason: string; conflict: boolean };

export type SumReport = { source: bigint; skipped: bigint; expected: bigint; target: bigint | null; equal: boolean | null };

export type ImportReport = {
  source: { kind: string; flavor: Flavor; id: string };
  applied: boolean;
  tables: TableReport[];
  /** The first problems of each table (all are counted in `tables`), with their reasons. */
  problems: Problem[];
  /** Remarks on rows that were imported with a change (an aff code left empty, a root taken over). */
  notes: Problem[];
  /** Source columns holding values Qiao has no place for: table.column → rows. */
  droppedColumns: Record<string, number>;
  options: {
    imported: string[];
    same: string[];
    conflicts: { key: string; reason: string }[];
    invalid: { key: string; reason: string }[];
    /** Keys Qiao does not have: listed, not written. */
    unsupported: string[];
  };
  /** Abilities the source has for imported channels that Qiao's rebuild from the channel does not give, per channel. */
  abilityDiffs: { channel: number; source: number; rebuilt: number }[];
  sums: Record<SumName, SumReport>;
  interrupted: boolean;
};

export class ImportInterrupted extends Error {
  constructor() {
    super("import interrupted");
  }
}

const PROBLEMS_PER_TABLE = 100;
const SUM_NAMES: SumName[] = ["users_quota", "users_used_quota", "tokens_remain_quota", "redemptions_unused_quota"];

/** Where the sums are read back from: the rows import_map says this source wrote. */
const TARGET_SUM_SQL: Record<SumName, { table: MappedTable; expr: string }> = {
  users_quota: { table: "users", expr: "t.quota" },
  users_used_quota: { table: "users", expr: "t.used_quota" },
  tokens_remain_quota: { table: "tokens", expr: "CASE WHEN t.unlimited_quota THEN 0 ELSE t.remain_quota END" },
  redemptions_unused_quota: { table: "redemptions", expr: "CASE WHEN t.status = 1 THEN t.quota ELSE 0 END" },
};

/**
 * Where the import writes: Prisma's client and the driver connection of Qiao's database, and the
 * log database's connection when LOG_SQL_DSN puts the logs apart (their cursor lives beside them,
 * so a batch and its cursor still commit together).
 */
export type ImportTarget = { db: Db; direct: DirectDb; logs?: DirectDb };

/** Runs a dry run (default) or the import; answers the report. */
export async function importNewApi(target: ImportTarget, options: ImportOptions): Promise<ImportReport> {
  const dsn = parseSourceDsn(options.from);
  const source = await openSource(dsn);
  try {
    const schema = await readSourceSchema(source);
    const run = new Run(target, source, schema, sourceId(dsn), options);
    return await run.all();
  } finally {
    await source.close();
  }
}

/**
 * The latest new-api keeps some settings under dotted keys where Qiao (and older new-api) has flat
 * ones: `general_setting.quota_display_type` (USD, CNY, CUSTOM or TOKENS) is DisplayInCurrencyEnabled,
 * `monitor_setting.auto_test_channel_enabled` and `_minutes` are ChannelTestInterval (0 = off).
 * Those come in as the flat key (the dotted value wins over a stale flat one); other dotted keys
 * stay as they are (listed as unsupported unless Qiao has them, like `oidc.*`).
 */
export function convertDottedOptions(options: Map<string, string>): Map<string, string> {
  const out = new Map(options);
  const display = out.get("general_setting.quota_display_type");
  if (display !== undefined) {
    out.delete("general_setting.quota_display_type");
    out.set("DisplayInCurrencyEnabled", String(display.trim().toUpperCase() !== "TOKENS"));
  }
  const testing = out.get("monitor_setting.auto_test_channel_enabled");
  const minutes = out.get("monitor_setting.auto_test_channel_minutes");
  if (testing !== undefined || minutes !== undefined) {
    out.delete("monitor_setting.auto_test_channel_enabled");
    out.delete("monitor_setting.auto_test_channel_minutes");
    // new-api's defaults: off, every 10 minutes; Qiao counts whole minutes, at least 1.
    const every = Number(minutes ?? 10);
    out.set("ChannelTestInterval", testing === "true" ? String(Math.max(1, Math.round(Number.isFinite(every) ? every : 10))) : "0");
  }
  return out;
}

class Run {
  private readonly report: ImportReport;
  private readonly ctx: ImportContext;
  private batches = 0;
  private readonly apply: boolean;

  constructor(
    private readonly target: ImportTarget,
    private readonly source: SourceDb,
    private readonly schema: SourceSchema,
    private readonly sourceKey: string,
    private readonly options: ImportOptions,
  ) {
    this.apply = !!options.apply;
    const ids = Object.fromEntries(MAPPED_TABLES.map((t) => [t, new Map<number, number>()])) as IdMaps;
    this.ctx = {
      db: target.db,
      direct: target.direct,
      ids,
      claimed: new Set(),
      adoptableRoot: undefined,
      flavor: schema.flavor,
      source,
      quotaPerUnit: 500_000n,
    };
    const emptySum = (): SumReport => ({ source: 0n, skipped: 0n, expected: 0n, target: null, equal: null });
    this.report = {
      source: { kind: source.kind, flavor: schema.flavor, id: sourceKey },
      applied: this.apply,
      tables: [],
      problems: [],
      notes: [],
      droppedColumns: {},
      options: { imported: [], same: [], conflicts: [], invalid: [], unsupported: [] },
      abilityDiffs: [],
      sums: Object.fromEntries(SUM_NAMES.map((n) => [n, emptySum()])) as Record<SumName, SumReport>,
      interrupted: false,
    };
  }

  async all(): Promise<ImportReport> {
    await this.loadIdMaps();
    try {
      await this.importOptions();
      for (const spec of TABLE_SPECS) await this.importTable(spec);
      if (this.apply) await this.linkInviters();
      // No source account took over the fresh install's root: it still opens with 123456.
      if (!this.ctx.adoptedRoot && (await rootUsesDefaultPassword(this.target.db))) {
        this.report.notes.push({ table: "users", id: 0, reason: IMPORT_MSG.rootStillDefault, conflict: false });
      }
      await this.compareAbilities();
      if (this.options.logs) await this.importLogs();
      else if (this.schema.columns.logs) this.report.tables.push({ ...(await this.logCounts()), imported: 0 });
    } catch (error) {
      if (!(error instanceof ImportInterrupted)) throw error;
      this.report.interrupted = true;
    }
    await this.finishSums();
    if (this.apply) this.announce();
    return this.report;
  }

  /**
   * Tells this process's caches (and, from the console, the relay workers and other instances) that
   * channels, options and a taken-over root changed. A CLI process has no one to tell: a running
   * server sees the rows at its next refresh (SYNC_FREQUENCY). New keys need no event: a key the
   * relay has not seen is looked up (a miss is remembered 30 s).
   */
  private announce() {
    publishInvalidation({ kind: "channels" });
    publishInvalidation({ kind: "options" });
    if (this.ctx.adoptedRoot) publishInvalidation({ kind: "user", id: this.ctx.adoptedRoot });
  }

  private async loadIdMaps() {
    const rows = await this.target.direct.query('SELECT "table", old_id, new_id FROM import_map WHERE source = ?', [this.sourceKey]);
    for (const r of rows) this.ctx.ids[str(r.table) as MappedTable]?.set(int(r.old_id), int(r.new_id));
  }

  private progress(table: string, done: number, total: number, startedAt: number) {
    this.options.onProgress?.({ table, done, total, startedAt });
  }

  /** Counts a committed batch; stops the run when the test hook says so. */
  private batchDone() {
    this.batches++;
    if (this.options.stopAfterBatches && this.batches >= this.options.stopAfterBatches) throw new ImportInterrupted();
  }

  private problem(list: Problem[], tableReport: TableReport, p: Problem) {
    if (list.filter((x) => x.table === p.table).length < PROBLEMS_PER_TABLE) list.push(p);
    if (list === this.report.problems) {
      if (p.conflict) tableReport.conflicts++;
      else tableReport.unmappable++;
    }
  }

  private countDropped(table: SourceTable, reads: readonly string[], rows: Row[]) {
    const cols = this.schema.columns[table];
    if (!cols) return;
    const read = new Set(reads);
    for (const col of cols) {
      if (read.has(col)) continue;
      const n = rows.filter((r) => {
        const v = r[col];
        return !(v == null || v === "" || v === 0 || v === 0n || v === false || v === "0" || v === "{}" || v === "null");
      }).length;
      if (n) this.report.droppedColumns[`${table}.${col}`] = (this.report.droppedColumns[`${table}.${col}`] ?? 0) + n;
    }
  }

  private async importTable(spec: TableSpec<unknown>) {
    const table = spec.table;
    const tr: TableReport = { table, rows: 0, already: 0, imported: 0, conflicts: 0, unmappable: 0, seconds: 0 };
    this.report.tables.push(tr);
    if (!this.schema.columns[table]) return;
    const ids = this.ctx.ids[table];
    const total = await countRows(this.source, table);
    tr.rows = total;
    const startedAt = Date.now();
    const size = this.options.batch ?? 200;
    for (let after = 0; ; ) {
      const rows = await readBatch(this.source, table, after, size);
      if (rows.length === 0) break;
      after = int(rows.at(-1)!.id);
      this.countDropped(table, spec.reads, rows);
      const fresh = rows.filter((r) => !ids.has(int(r.id)));
      tr.already += rows.length - fresh.length;
      for (const r of rows) this.addSums(spec, r, "source");
      const decisions = fresh.length ? await spec.decide(fresh, this.ctx) : [];
      const toWrite: { old: number; data: unknown }[] = [];
      for (const [i, d] of decisions.entries()) {
        const row = fresh[i]!;
        const old = int(row.id);
        if ("skip" in d) {
          this.problem(this.report.problems, tr, { table, id: old, reason: d.skip, conflict: !!d.conflict });
          this.addSums(spec, row, "skipped");
          continue;
        }
        if (d.note) this.problem(this.report.notes, tr, { table, id: old, reason: d.note, conflict: false });
        toWrite.push({ old, data: d.data });
      }
      tr.imported += toWrite.length;
      if (this.apply && toWrite.length) {
        const written = await this.target.db.$transaction(
          async (tx) => {
            const out: { old_id: number; new_id: number }[] = [];
            for (const w of toWrite) out.push({ old_id: w.old, new_id: await spec.write(tx, w.data) });
            await tx.importMap.createMany({ data: out.map((o) => ({ source: this.sourceKey, table, ...o })) });
            return out;
          },
          { timeout: 120_000, maxWait: 30_000 },
        );
        for (const w of written) ids.set(w.old_id, w.new_id);
        this.batchDone();
      } else {
        for (const w of toWrite) ids.set(w.old, -w.old);
      }
      this.progress(table, tr.already + tr.imported + tr.conflicts + tr.unmappable, total, startedAt);
      tr.seconds = (Date.now() - startedAt) / 1000;
    }
  }

  private addSums(spec: TableSpec<unknown>, row: Row, part: "source" | "skipped") {
    const sums = spec.sums?.(row);
    if (!sums) return;
    for (const [name, v] of Object.entries(sums) as [SumName, bigint][]) this.report.sums[name][part] += v;
  }

  /** Source inviter ids → the imported inviters' ids, for every imported user (the same values on a re-run). */
  private async linkInviters() {
    if (!this.schema.columns.users?.has("inviter_id")) return;
    const users = this.ctx.ids.users;
    const invited = await this.source.query(`SELECT id, inviter_id FROM ${ident(this.source.kind, "users")} WHERE inviter_id > 0`);
    const statements: Statement[] = [];
    for (const r of invited) {
      const id = users.get(int(r.id));
      const inviter = users.get(int(r.inviter_id));
      if (id && id > 0 && inviter && inviter > 0) {
        statements.push({ sql: "UPDATE users SET inviter_id = ? WHERE id = ? AND inviter_id <> ?", params: [inviter, id, inviter] });
      }
    }
    for (let i = 0; i < statements.length; i += 500) await this.target.direct.transaction(statements.slice(i, i + 500));
  }

  /** Qiao rebuilds abilities from each channel's models × groups; a source whose rows differ (edited by hand) is reported. */
  private async compareAbilities() {
    if (!this.schema.columns.abilities || !this.schema.columns.channels) return;
    const counts = await this.source.query(
      `SELECT channel_id, COUNT(*) AS n FROM ${ident(this.source.kind, "abilities")} GROUP BY channel_id`,
    );
    const channels = await this.source.query(
      `SELECT id, models, ${ident(this.source.kind, "group")} AS grp FROM ${ident(this.source.kind, "channels")}`,
    );
    const split = (s: unknown) =>
      str(s)
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
    const rebuilt = new Map(channels.map((c) => [int(c.id), new Set(split(c.models)).size * new Set(split(c.grp)).size]));
    for (const c of counts) {
      const id = int(c.channel_id);
      const n = int(c.n);
      if (!this.ctx.ids.channels.has(id)) continue;
      if ((rebuilt.get(id) ?? 0) !== n) this.report.abilityDiffs.push({ channel: id, source: n, rebuilt: rebuilt.get(id) ?? 0 });
    }
  }

  private async importOptions() {
    if (!this.schema.columns.options) return;
    const rows = await this.source.query(`SELECT ${ident(this.source.kind, "key")} AS k, value FROM ${ident(this.source.kind, "options")}`);
    const existing = new Map((await this.target.db.option.findMany({ select: { key: true, value: true } })).map((o) => [o.key, o.value]));
    const o = this.report.options;
    const writes: { key: string; value: string }[] = [];
    const values = convertDottedOptions(new Map(rows.map((r) => [str(r.k), str(r.value)])));
    for (const [key, value] of [...values].sort(([a], [b]) => a.localeCompare(b))) {
      if (key === "QuotaPerUnit" && Number(value) > 0) this.ctx.quotaPerUnit = BigInt(Math.round(Number(value)));
      if (!isOptionKey(key)) {
        o.unsupported.push(key);
        continue;
      }
      const parsed = parseOption(key, value);
      if (!parsed.ok) {
        o.invalid.push({ key, reason: parsed.message });
        continue;
      }
      const current = existing.get(key);
      if (current === undefined ? parsed.raw === defaultRaw(key) : current === parsed.raw) {
        o.same.push(key);
      } else if (current !== undefined) {
        o.conflicts.push({ key, reason: "Qiao 中已设置为不同的值" });
      } else {
        o.imported.push(key);
        writes.push({ key, value: parsed.raw });
      }
    }
    if (this.apply && writes.length) await this.target.db.option.createMany({ data: writes });
  }

  private async logCounts(): Promise<TableReport> {
    const rows = await countRows(this.source, "logs");
    const cursor = await this.cursor();
    const [done] = await this.source.query(`SELECT COUNT(*) AS n FROM ${ident(this.source.kind, "logs")} WHERE id <= ?`, [cursor.last_id]);
    return { table: "logs", rows, already: int(done?.n), imported: 0, conflicts: 0, unmappable: 0, seconds: 0 };
  }

  /** Where the log rows and their cursor go. */
  private get logsDb(): DirectDb {
    return this.target.logs ?? this.target.direct;
  }

  private async cursor(): Promise<{ last_id: number; rows: number }> {
    const [row] = await this.logsDb.query('SELECT last_id, "rows" FROM import_cursors WHERE source = ? AND "table" = ?', [
      this.sourceKey,
      "logs",
    ]);
    return { last_id: int(row?.last_id), rows: int(row?.rows) };
  }

  /**
   * Logs: streamed in id order, each batch inserted with the product's log insert
   * (lib/logs/insert.ts) and the cursor moved in the same transaction. References to rows not
   * imported become 0 (the username and token name stay on the row, as written).
   */
  private async importLogs() {
    const tr = await this.logCounts();
    this.report.tables.push(tr);
    const cols = this.schema.columns.logs;
    if (!cols) return;
    const reads = [
      "id",
      "user_id",
      "created_at",
      "type",
      "content",
      "username",
      "token_name",
      "model_name",
      "quota",
      "prompt_tokens",
      "completion_tokens",
      "use_time",
      "elapsed_time",
      "is_stream",
      "channel_id",
      "token_id",
      "group",
      "request_id",
      "other",
    ];
    const { users, tokens, channels } = this.ctx.ids;
    const ref = (m: Map<number, number>, v: unknown) => Math.max(m.get(int(v)) ?? 0, 0);
    const size = this.options.logBatch ?? 2000;
    const startedAt = Date.now();
    let { last_id: after } = await this.cursor();
    let unlinked = 0;
    const knownTypes = new Set<number>(Object.values(LOG_TYPE));
    const unknownTypes = new Map<number, number>();
    for (;;) {
      const rows = await readBatch(this.source, "logs", after, size);
      if (rows.length === 0) break;
      after = int(rows.at(-1)!.id);
      this.countDropped("logs", reads, rows);
      const out: LogRow[] = rows.map((r) => {
        const userId = ref(users, r.user_id);
        // Not imported (nor, in a dry run, planned): the row keeps its username, user_id 0.
        if (int(r.user_id) && !users.has(int(r.user_id))) unlinked++;
        const type = int(r.type);
        if (!knownTypes.has(type)) unknownTypes.set(type, (unknownTypes.get(type) ?? 0) + 1);
        return {
          user_id: userId,
          created_at: int(r.created_at),
          type,
          content: str(r.content),
          username: str(r.username),
          token_name: str(r.token_name),
          model_name: str(r.model_name),
          quota: big(r.quota),
          prompt_tokens: int(r.prompt_tokens),
          completion_tokens: int(r.completion_tokens),
          // one-api kept elapsed_time in milliseconds; new-api and Qiao use_time in seconds.
          use_time: r.use_time != null ? int(r.use_time) : Math.round(int(r.elapsed_time) / 1000),
          is_stream: bool(r.is_stream),
          channel_id: ref(channels, r.channel_id),
          token_id: ref(tokens, r.token_id),
          group: str(r.group),
          request_id: str(r.request_id),
          other: str(r.other),
        };
      });
      tr.imported += rows.length;
      if (this.apply) {
        const statements = logInsertStatements(this.logsDb.kind, out);
        statements.push({
          sql: 'UPDATE import_cursors SET last_id = ?, "rows" = "rows" + ? WHERE source = ? AND "table" = ?',
          params: [after, rows.length, this.sourceKey, "logs"],
          ifNone: [
            {
              sql: 'INSERT INTO import_cursors (source, "table", last_id, "rows") VALUES (?, ?, ?, ?)',
              params: [this.sourceKey, "logs", after, rows.length],
            },
          ],
        });
        await this.logsDb.transaction(statements);
        this.progress("logs", tr.already + tr.imported, tr.rows, startedAt);
        tr.seconds = (Date.now() - startedAt) / 1000;
        this.batchDone();
      } else {
        this.progress("logs", tr.already + tr.imported, tr.rows, startedAt);
        tr.seconds = (Date.now() - startedAt) / 1000;
      }
    }
    if (unlinked) {
      this.report.notes.push({ table: "logs", id: 0, reason: `${unlinked} 条日志的用户未导入，user_id 记为 0`, conflict: false });
    }
    for (const [type, n] of unknownTypes) {
      // new-api's later types (6: refund) keep their number; the log page shows it as stored.
      this.report.notes.push({ table: "logs", id: 0, reason: `${n} 条日志的类型 ${type} 是 Qiao 没有的，按原值导入`, conflict: false });
    }
  }

  /** Expected = source − skipped; with `apply`, the target's sums over the rows this source wrote, which must equal it. */
  private async finishSums() {
    for (const name of SUM_NAMES) {
      const s = this.report.sums[name];
      s.expected = s.source - s.skipped;
      if (!this.apply) continue;
      const { table, expr } = TARGET_SUM_SQL[name];
      const [row] = await this.target.direct.query(
        `SELECT COALESCE(SUM(${expr}), 0) AS s FROM ${table} t JOIN import_map m ON m.new_id = t.id WHERE m.source = ? AND m."table" = ?`,
        [this.sourceKey, table],
      );
      s.target = big(row?.s);
      s.equal = s.target === s.expected;
    }
  }
}
