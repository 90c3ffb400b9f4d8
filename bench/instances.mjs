// Two instances on PostgreSQL + Redis against one instance on SQLite (issue 27).
//   node bench/instances.mjs [--duration 30] [--warmup 5] [--connections 1,50] [--modes json,stream]
//                            [--tool wrk|autocannon] [--threads 1] [--redis-db 13] [--keep]
//                            [--start-timeout 1200]
// Starts the mock upstream, then measures two setups one after the other, each seeded through its
// own /api as run.mjs seeds Qiao:
//   1×SQLite    one `node scripts/start.mjs` on a fresh SQLite DATA_DIR (what run.mjs loads);
//   2×PG+Redis  two `node scripts/start.mjs` on a throwaway PostgreSQL database and Redis database
//               `--redis-db` (A master, B slave), seeded once through A; B must then serve the key.
// Each mode × c loads the setup's instances at once, the connections split between them (c=50:
// 25 on A and 25 on B, two load generators in parallel; c=1: the one connection on A). The table
// gives req/s summed over the generators, p50 and p99 of the slower one, and the ratio to 1×SQLite
// at the same point. After each setup's load the billing check of run.mjs runs on its database
// (both instances' rows together). Any error or billing mismatch fails the run (exit 1). The
// PostgreSQL database is dropped and the Redis keys deleted at the end, unless --keep.
import os from "node:os";
import {
  checkLedger,
  claimRedisDatabase,
  createPostgresDatabase,
  fmt,
  hasWrk,
  ledgerSnapshot,
  loadAcross,
  parseArgs,
  runMain,
  SCENARIOS,
  seedQiao,
  settleLedger,
  sleep,
  startInstances,
  startMockUpstream,
  startQiao,
  stopQiao,
  table,
  tempDir,
  waitForRelay,
} from "./lib.mjs";

const args = parseArgs();
const duration = Number(args.duration ?? 30);
const warmup = Number(args.warmup ?? 5);
const connections = String(args.connections ?? "1,50")
  .split(",")
  .map(Number);
const modes = String(args.modes ?? "json,stream").split(",");
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const threads = Number(args.threads ?? 1);
const redisDb = Number(args["redis-db"] ?? 13);
const keep = args.keep === true;
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
if (
  !(duration > 0) ||
  !(warmup >= 0) ||
  !(threads >= 1) ||
  !(Number.isInteger(redisDb) && redisDb >= 0 && redisDb <= 15) ||
  connections.some((c) => !Number.isInteger(c) || c < 1) ||
  modes.some((m) => !Object.hasOwn(SCENARIOS, m))
) {
  console.error(
    `usage: node bench/instances.mjs [--duration 30] [--warmup 5] [--connections 1,50] [--modes json,stream] (of ${Object.keys(SCENARIOS).join(",")}) [--tool wrk|autocannon] [--threads 1] [--redis-db 0…15] [--keep]`,
  );
  process.exit(2);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];

/** Fails unless `url`'s /readyz says ready, on PostgreSQL, with Redis configured and answering. */
async function checkShared(url) {
  const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  const j = await r.json().catch(() => null);
  const redis = j?.checks?.redis;
  if (!r.ok || j?.status !== "ready" || !redis?.configured || !redis.ok) {
    throw new Error(`${url}/readyz: HTTP ${r.status} ${JSON.stringify(j)} (want ready, Redis configured and answering)`);
  }
}

runMain(async () => {
  console.log(
    `[bench] node ${process.version}, ${os.cpus().length} cpu(s), loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; tool=${tool} duration=${duration}s warmup=${warmup}s connections=${connections.join(",")} modes=${modes.join(",")}`,
  );
  const work = tempDir("qiao-bench-work-");
  // The shared database and Redis first: a Redis database in use fails the run before any load.
  const redisUrl = await claimRedisDatabase(redisDb, { keep });
  const pg = await createPostgresDatabase({ keep });
  const upstream = await startMockUpstream();
  console.log(`[bench] mock upstream ${upstream.url}`);
  const rows = [];
  const failures = [];

  /**
   * Loads `instances` (one setup) at every mode × c, then checks its billing through `api`.
   * Everything billed since `before` is this function's traffic.
   */
  const measure = async (setup, instances, api, key) => {
    const targets = instances.map((q) => ({ url: q.url, key }));
    // The baseline once the seeding calls are written (holds closed, rows and usage in).
    const before = await settleLedger(api, await ledgerSnapshot(api), 0);
    let completed = 0;
    let slack = 0; // requests cut off when a generator stopped (may or may not be billed)
    const run = async (mode, c, seconds, what) => {
      const r = await loadAcross({ targets, connections: c, scenario: mode, seconds, threads, dir: work, tool });
      completed += r.requests;
      slack += c;
      if (r.errors) failures.push(`${setup} ${mode} ${what} c=${c}: ${r.errors} errors (${r.detail})`);
      return r;
    };
    for (const mode of modes) {
      if (warmup > 0) await run(mode, Math.max(...connections), warmup, "warm-up");
      for (const c of connections) {
        const r = await run(mode, c, duration, "");
        const split = r.parts.map((p) => `${fmt(p.rps, 0)} (c=${p.connections})`).join(" + ");
        console.log(
          `[bench] ${setup.padEnd(10)} ${mode.padEnd(15)} c=${String(c).padEnd(3)} ${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}` +
            (r.parts.length > 1 ? `  = ${split}` : ""),
        );
        rows.push({ setup, mode, c, ...r });
        await sleep(1000);
      }
    }
    const after = await settleLedger(api, before, completed);
    const billing = checkLedger(before, after, { completed, slack });
    console.log(`[bench] ${setup} billing: ${billing.lines.join("\n")}`);
    failures.push(...billing.failures.map((f) => `${setup} ${f}`));
    for (const q of instances) {
      if (q.lateErrors() > 0) console.log(`note: ${q.url} wrote ${q.lateErrors()} line(s) to stderr during the run (see above)`);
    }
  };

  // 1×SQLite, as run.mjs runs Qiao; stopped before the next setup starts, so they never share the CPUs.
  let t0 = Date.now();
  const single = await startQiao({ startTimeoutMs });
  console.log(`[bench] 1×SQLite: Qiao ${single.url} ready after ${((Date.now() - t0) / 1000).toFixed(1)} s, DATA_DIR ${single.dataDir}`);
  const seeded = await seedQiao(single, upstream.url);
  await measure("1×SQLite", [single], seeded.api, seeded.key);
  await stopQiao(single);

  // 2×PG+Redis: A (master) migrates the empty database and creates root; B (slave) starts after.
  t0 = Date.now();
  const pair = await startInstances({ count: 2, dsn: pg.dsn, redisUrl, startTimeoutMs });
  console.log(
    `[bench] 2×PG+Redis: A ${pair[0].url} (master), B ${pair[1].url} (slave) ready after ${((Date.now() - t0) / 1000).toFixed(1)} s; PostgreSQL ${pg.name}, Redis ${redisUrl}`,
  );
  for (const q of pair) await checkShared(q.url);
  const shared = await seedQiao(pair[0], upstream.url);
  for (const q of pair.slice(1)) await waitForRelay(q.url, shared.key);
  await measure("2×PG+Redis", pair, shared.api, shared.key);
  for (const q of pair) await checkShared(q.url); // Redis stayed with them through the load

  const base = (r) => rows.find((b) => b.setup === "1×SQLite" && b.mode === r.mode && b.c === r.c);
  const body = rows.map((r) => {
    const b = r.setup === "1×SQLite" ? null : base(r);
    return [
      r.setup,
      r.mode,
      r.c,
      r.parts.map((p) => p.connections).join(" + "),
      fmt(r.rps, 0),
      fmt(r.p50, 2),
      fmt(r.p99, 2),
      r.errors,
      b ? fmt(r.rps / b.rps, 2) : "",
      b ? fmt(r.p99 / b.p99, 2) : "",
    ];
  });
  console.log(
    `\n${table(["setup", "mode", "c", "connections", "req/s", "p50 ms", "p99 ms", "errors", "req/s ÷ 1×SQLite", "p99 ÷ 1×SQLite"], body)}\n`,
  );
  const ratios = rows.filter((r) => r.setup !== "1×SQLite").map((r) => r.rps / base(r).rps);
  console.log(`2×PG+Redis ÷ 1×SQLite req/s: median ${fmt(median(ratios), 2)} over ${ratios.length} point(s)`);

  if (failures.length) {
    console.error(`\n[bench] FAILED — ${failures.length} problem(s):\n  ${failures.join("\n  ")}`);
    return 1;
  }
  console.log("\n[bench] OK: no errors; billing verified on both setups.");
  return 0;
});
