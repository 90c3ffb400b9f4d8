// Usage-log queries on a large table: fills a fresh SQLite file with N log rows (1 000 000 by
// default) spread over 30 days, then times the queries /log runs through the same lib/ functions
// the /api/log handlers call (lib/logs/query.ts, real Prisma client and migrations).
//   node bench/logs.mjs [--rows 1000000] [--runs 20] [--keep]
// Prints the median and the slowest of `runs` calls per query. Target: the default page and the
// stat query both under 100 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { tsImport } from "tsx/esm/api";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]?.startsWith("--") ? true : (all[i + 1] ?? true)]] : [])),
);
const ROWS = Number(args.rows ?? 1_000_000);
const RUNS = Number(args.runs ?? 20);
const DAYS = 30;

const dir = mkdtempSync(path.join(tmpdir(), "qiao-logs-bench-"));
process.env.DATA_DIR = dir;
process.env.SQLITE_PATH = path.join(dir, "qiao.db");
process.env.SQL_DSN = "";
process.env.NODE_ENV ??= "production";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const load = (file) => tsImport(path.join(root, file), import.meta.url);

const { getDb } = await load("lib/db/index.ts");
const query = await load("lib/logs/query.ts");
const { defaultLogRange } = await load("lib/logs/range.ts");

const db = await getDb(); // migrates the fresh file
const now = Math.floor(Date.now() / 1000);

// ~200 users with 2 tokens each, 20 models, 30 channels; 90 % consumption, the rest top-ups,
// admin and system rows; evenly spread over the last 30 days, inserted oldest first like the relay.
const USERS = 200;
const MODELS = Array.from({ length: 20 }, (_, i) => `model-${i}`);
function fill() {
  const raw = new Database(process.env.SQLITE_PATH);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = OFF");
  const insert = raw.prepare(
    `INSERT INTO logs (user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
      completion_tokens, use_time, is_stream, channel_id, token_id, "group", request_id, other)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'default', '', ?)`,
  );
  const other = JSON.stringify({
    model_ratio: 2.5,
    completion_ratio: 4,
    group_ratio: 1,
    model_price: -1,
    frt: 812,
    admin_info: { use_channel: ["3"] },
  });
  const span = DAYS * 86400;
  const batch = raw.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const user = 1 + ((i * 7919) % USERS);
      const r = (i * 2654435761) >>> 0;
      const type = r % 10 === 0 ? 1 + (r % 4 === 1 ? 0 : (r >>> 4) % 4) : 2;
      const consume = type === 2;
      const prompt = consume ? 10 + (r % 2000) : 0;
      const completion = consume ? (r >>> 3) % 800 : 0;
      insert.run(
        user,
        now - span + Math.floor((i / ROWS) * span),
        type,
        consume ? "模型倍率 2.50，补全倍率 4.00，分组倍率 1.00" : "充值",
        `user${user}`,
        consume ? `token-${user}-${r % 2}` : "",
        consume ? MODELS[r % MODELS.length] : "",
        consume ? Math.round((prompt + completion * 4) * 2.5) : 500000,
        prompt,
        completion,
        consume ? 1 + (r % 30) : 0,
        consume && r % 3 === 0 ? 1 : 0,
        consume ? 1 + (r % 30) : 0,
        consume ? user * 2 + (r % 2) : 0,
        consume ? other : "",
      );
    }
  });
  const t0 = performance.now();
  for (let from = 0; from < ROWS; from += 50_000) batch(from, Math.min(ROWS, from + 50_000));
  raw.pragma("wal_checkpoint(TRUNCATE)");
  raw.exec("ANALYZE");
  raw.close();
  return performance.now() - t0;
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

try {
  console.log(`filling ${ROWS.toLocaleString("en")} log rows into ${process.env.SQLITE_PATH} …`);
  const fillMs = fill();
  console.log(`filled in ${(fillMs / 1000).toFixed(1)} s`);

  const base = { p: 0, page_size: 10, type: 0, username: "", token_name: "", model_name: "", channel: 0 };
  const today = { ...base, ...defaultLogRange(now) };
  const month = { ...base, start_timestamp: now - DAYS * 86400, end_timestamp: now + 3600 };
  const results = [
    await time("default page, admin (today)", () => query.listLogs(today)),
    await time("stat, admin (today)", () => query.getLogStat(today)),
    await time("default page, user (today)", () => query.listUserLogs(7, today)),
    await time("stat, user (today)", () => query.getUserLogStat(7, today)),
    await time("page, admin, 30 days", () => query.listLogs(month)),
    await time("stat, admin, 30 days", () => query.getLogStat(month)),
    await time("page, admin, 30 days, model filter", () => query.listLogs({ ...month, model_name: "model-3" })),
    await time("stat, admin, 30 days, username filter", () => query.getLogStat({ ...month, username: "user42" })),
    await time("page, admin, no time filter, page 500", () => query.listLogs({ ...base, start_timestamp: 0, end_timestamp: 0, p: 500 })),
    await time("stat, admin, no time filter", () => query.getLogStat({ ...base, start_timestamp: 0, end_timestamp: 0 })),
  ];
  console.log("");
  console.log(`| query (${RUNS} runs) | median ms | max ms | rows matched / stat |`);
  console.log("|---|---:|---:|---|");
  for (const r of results) {
    const info = "total" in r.result ? `${r.result.total} rows` : `quota ${r.result.quota}, rpm ${r.result.rpm}, tpm ${r.result.tpm}`;
    console.log(`| ${r.label} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} | ${info} |`);
  }
  const target = results.slice(0, 2).every((r) => r.median < 100);
  console.log(`\ndefault page and stat under 100 ms: ${target ? "yes" : "NO"}`);
  await db.$disconnect();
  process.exitCode = target ? 0 : 1;
} finally {
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
