// Usage-log queries on a large table: fills a fresh database with N log rows spread over 30 days
// (and the dashboard's usage buckets those rows make), then times the queries /log and /detail
// run, through the same lib/ functions the /api/log and /api/data handlers call (lib/logs/query.ts,
// lib/data/query.ts; real Prisma client and migrations).
//   node bench/logs.mjs [--rows 1000000] [--runs 20] [--keep]          SQLite, a temp file
//   node bench/logs.mjs --pg [--rows 10000000] [--runs 20] [--keep]    PostgreSQL, a throwaway database
//   (--pg-admin postgres://postgres@127.0.0.1:5432/postgres: where it is created and dropped)
// Both databases are filled by one SQL statement per chunk (INSERT … SELECT over a generated row
// series: generate_series on PostgreSQL, a recursive CTE on SQLite), the same row recipe for both.
// PostgreSQL fills without the log table's indexes and builds them afterwards (their definitions
// read from pg_indexes first), then VACUUM ANALYZE. Prints the median and the slowest of `runs`
// calls per query. Target: every query under 100 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]?.startsWith("--") ? true : (all[i + 1] ?? true)]] : [])),
);
const PG = Boolean(args.pg);
const ROWS = Number(args.rows ?? (PG ? 10_000_000 : 1_000_000));
const RUNS = Number(args.runs ?? 20);
const DAYS = 30;
const PG_ADMIN = typeof args["pg-admin"] === "string" ? args["pg-admin"] : "postgres://postgres@127.0.0.1:5432/postgres";
/** Rows per INSERT … SELECT. */
const CHUNK = PG ? 1_000_000 : 100_000;
/** The dashboard's bucket width: DataExportInterval's default, 5 minutes. */
const BUCKET_SECONDS = 300;

const dir = mkdtempSync(path.join(tmpdir(), "qiao-logs-bench-"));
process.env.DATA_DIR = dir;
process.env.SQLITE_PATH = path.join(dir, "qiao.db");
process.env.NODE_ENV ??= "production";
process.env.LOG_SQL_DSN = "";

const pg = PG ? (await import("pg")).default : null;
const pgName = `qiao_logs_bench_${Date.now().toString(36)}`;
async function pgAdmin(sql) {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
if (PG) {
  await pgAdmin(`CREATE DATABASE ${pgName}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${pgName}`;
  process.env.SQL_DSN = url.toString();
} else process.env.SQL_DSN = "";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const load = (file) => tsImport(path.join(root, file), import.meta.url);

const now = Math.floor(Date.now() / 1000);
const SPAN = DAYS * 86400;
const USERS = 200;
const MODELS = 20;
const OTHER = JSON.stringify({
  model_ratio: 2.5,
  completion_ratio: 4,
  group_ratio: 1,
  model_price: -1,
  frt: 812,
  admin_info: { use_channel: ["3"] },
});

/**
 * The row recipe over a series `s(i)`: ~200 users with 2 tokens each, 20 models, 30 channels; 90 %
 * consumption, the rest top-ups, admin and system rows; evenly spread over the last 30 days, row i
 * later than row i-1 (inserted oldest first, as the relay does). `r` is a multiplicative hash of i.
 */
const recipe = (series) => `
  INSERT INTO logs (user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
    completion_tokens, use_time, is_stream, channel_id, token_id, "group", request_id, other)
  SELECT u, ${now - SPAN} + (i * ${SPAN}) / ${ROWS}, type,
    CASE WHEN type = 2 THEN '模型倍率 2.50，补全倍率 4.00，分组倍率 1.00' ELSE '充值' END,
    'user' || u,
    CASE WHEN type = 2 THEN 'token-' || u || '-' || (r % 2) ELSE '' END,
    CASE WHEN type = 2 THEN 'model-' || (r % ${MODELS}) ELSE '' END,
    CASE WHEN type = 2 THEN ((10 + r % 2000) + ((r / 8) % 800) * 4) * 5 / 2 ELSE 500000 END,
    CASE WHEN type = 2 THEN 10 + r % 2000 ELSE 0 END,
    CASE WHEN type = 2 THEN (r / 8) % 800 ELSE 0 END,
    CASE WHEN type = 2 THEN 1 + r % 30 ELSE 0 END,
    (type = 2 AND r % 3 = 0),
    CASE WHEN type = 2 THEN 1 + r % 30 ELSE 0 END,
    CASE WHEN type = 2 THEN u * 2 + r % 2 ELSE 0 END,
    'default', '',
    CASE WHEN type = 2 THEN '${OTHER}' ELSE '' END
  FROM (
    SELECT i, u, r, CASE WHEN r % 10 = 0 THEN (CASE WHEN r % 4 = 1 THEN 1 ELSE 1 + (r / 16) % 4 END) ELSE 2 END AS type
    FROM (SELECT i, 1 + (i * 7919) % ${USERS} AS u, (i * 2654435761) % 4294967296 AS r FROM ${series}) a
  ) b`;

/** The dashboard's buckets the relay would have written for those rows (one per user, model and 5 minutes). */
const bucketsSql = `
  INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota)
  SELECT user_id, username, model_name, created_at - created_at % ${BUCKET_SECONDS}, SUM(prompt_tokens + completion_tokens), COUNT(*), SUM(quota)
  FROM logs WHERE type = 2
  GROUP BY user_id, username, model_name, created_at - created_at % ${BUCKET_SECONDS}`;

async function fillSqlite() {
  const Database = (await import("better-sqlite3")).default;
  const raw = new Database(process.env.SQLITE_PATH);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = OFF");
  for (let from = 0; from < ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK) - 1;
    raw.exec(`WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to}) ${recipe("s")}`);
  }
  raw.exec(bucketsSql);
  raw.pragma("wal_checkpoint(TRUNCATE)");
  raw.exec("ANALYZE");
  raw.close();
}

async function fillPostgres() {
  const c = new pg.Client({ connectionString: process.env.SQL_DSN });
  await c.connect();
  try {
    // Filled without their secondary indexes, which are built once afterwards (far faster than
    // updating them row by row); the unique bucket key holds anyway (GROUP BY).
    const { rows: indexes } = await c.query(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('logs', 'quota_data') AND indexname NOT LIKE '%_pkey'",
    );
    for (const ix of indexes) await c.query(`DROP INDEX "${ix.indexname}"`);
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK) - 1;
      await c.query(recipe(`generate_series(${from}::bigint, ${to}::bigint) AS s(i)`));
      process.stdout.write(".");
    }
    process.stdout.write("\n");
    await c.query(bucketsSql);
    await c.query("SET maintenance_work_mem = '256MB'");
    const t0 = performance.now();
    for (const ix of indexes) await c.query(ix.indexdef);
    console.log(`${indexes.length} indexes built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await c.query("VACUUM ANALYZE logs");
    await c.query("VACUUM ANALYZE quota_data");
  } finally {
    await c.end();
  }
}

async function time(label, fn) {
  await fn(); // warm: statement cache, pages in memory
  const ms = [];
  let result;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor((ms.length - 1) / 2)];
  const max = ms[ms.length - 1];
  return { label, median, max, result };
}

function summary(result) {
  if (Array.isArray(result)) return `${result.length} buckets`;
  if ("total" in result) return `${result.total} rows`;
  return `quota ${result.quota}, rpm ${result.rpm}, tpm ${result.tpm}`;
}

let db;
try {
  const { getDb } = await load("lib/db/index.ts");
  db = await getDb(); // migrates the fresh database
  const query = await load("lib/logs/query.ts");
  const data = await load("lib/data/query.ts");
  const { defaultLogRange } = await load("lib/logs/range.ts");
  const { defaultRange } = await load("lib/ui/usage-series.ts");

  console.log(`filling ${ROWS.toLocaleString("en")} log rows into ${PG ? `PostgreSQL database ${pgName}` : process.env.SQLITE_PATH} …`);
  const t0 = performance.now();
  await (PG ? fillPostgres() : fillSqlite());
  console.log(`filled (logs, buckets, indexes, ANALYZE) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const buckets = await db.quotaData.count();
  console.log(`${buckets.toLocaleString("en")} dashboard buckets (quota_data, ${BUCKET_SECONDS / 60}-minute)`);

  const base = { p: 0, page_size: 10, type: 0, username: "", token_name: "", model_name: "", channel: 0 };
  const today = { ...base, ...defaultLogRange(now) };
  // A whole earlier day: the default view at its fullest (late in the day), and a time-range filter.
  const { start_timestamp: midnight } = defaultLogRange(now);
  const yesterday = { ...base, start_timestamp: midnight - 86400, end_timestamp: midnight - 1 };
  const week = { ...base, start_timestamp: now - 7 * 86400, end_timestamp: now + 3600 };
  const month = { ...base, start_timestamp: now - DAYS * 86400, end_timestamp: now + 3600 };
  const all = { ...base, start_timestamp: 0, end_timestamp: 0 };
  const day = defaultRange("hour", now);
  const dashboard = { start_timestamp: day.start, end_timestamp: day.end, username: "" };
  const results = [
    await time("page, admin, default (today)", () => query.listLogs(today)),
    await time("stat, admin, default (today)", () => query.getLogStat(today)),
    await time("page, admin, today, username filter", () => query.listLogs({ ...today, username: "user42" })),
    await time("stat, admin, today, username filter", () => query.getLogStat({ ...today, username: "user42" })),
    await time("page, admin, today, model filter", () => query.listLogs({ ...today, model_name: "model-3" })),
    await time("stat, admin, today, model filter", () => query.getLogStat({ ...today, model_name: "model-3" })),
    await time("page, admin, today, token filter", () => query.listLogs({ ...today, token_name: "token-42-1" })),
    await time("stat, admin, today, token filter", () => query.getLogStat({ ...today, token_name: "token-42-1" })),
    await time("page, admin, yesterday (a whole day)", () => query.listLogs(yesterday)),
    await time("stat, admin, yesterday (a whole day)", () => query.getLogStat(yesterday)),
    await time("page, admin, yesterday, model filter", () => query.listLogs({ ...yesterday, model_name: "model-3" })),
    await time("stat, admin, yesterday, model filter", () => query.getLogStat({ ...yesterday, model_name: "model-3" })),
    await time("page, admin, 30 days, username filter", () => query.listLogs({ ...month, username: "user42" })),
    await time("stat, admin, 30 days, username filter", () => query.getLogStat({ ...month, username: "user42" })),
    await time("page, user's own, default (today)", () => query.listUserLogs(7, today)),
    await time("stat, user's own, default (today)", () => query.getUserLogStat(7, today)),
    await time("page, user's own, 30 days", () => query.listUserLogs(7, month)),
    await time("stat, user's own, 30 days", () => query.getUserLogStat(7, month)),
    await time("dashboard, admin, default (24 h)", () => data.listQuotaData(dashboard)),
    await time("dashboard, admin, 24 h, username filter", () => data.listQuotaData({ ...dashboard, username: "user42" })),
    await time("dashboard, user's own, 24 h", () => data.listUserQuotaData(7, dashboard)),
    // Wider than any default: shown for what they cost, not part of the target.
    await time("page, admin, 7 days (wide)", () => query.listLogs(week)),
    await time("stat, admin, 7 days (wide)", () => query.getLogStat(week)),
    await time("page, admin, 30 days (wide)", () => query.listLogs(month)),
    await time("stat, admin, 30 days (wide)", () => query.getLogStat(month)),
    await time("page, admin, no time filter, page 500 (wide)", () => query.listLogs({ ...all, p: 500 })),
    await time("stat, admin, no time filter (wide)", () => query.getLogStat(all)),
  ];
  console.log("");
  console.log(`| query (${RUNS} runs) | median ms | max ms | rows matched / stat |`);
  console.log("|---|---:|---:|---|");
  for (const r of results) console.log(`| ${r.label} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} | ${summary(r.result)} |`);
  const targeted = results.filter((r) => !r.label.endsWith("(wide)"));
  const slow = targeted.filter((r) => r.median >= 100);
  console.log(
    `\nevery query but the wide ones under 100 ms (median): ${slow.length ? `NO (${slow.map((r) => r.label).join("; ")})` : "yes"}`,
  );
  process.exitCode = slow.length ? 1 : 0;
} finally {
  await db?.$disconnect();
  if (args.keep) console.log(`kept ${PG ? `PostgreSQL database ${pgName}` : dir}`);
  else {
    if (PG) await pgAdmin(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  }
}
