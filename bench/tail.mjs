// Where the tail comes from (issue 29): per-request timelines of the slowest 1 %, Qiao beside the
// dispatch floor, under the same load.
//   node bench/tail.mjs [--seconds 10] [--warmup 3] [--connections 50] [--mode json|stream]
//                       [--targets floor-dispatch,qiao] [--entry <built server.mjs>] [--rounds 1]
//                       [--no-checkpoint]
// Each target runs with bench/tail-probe.cjs preloaded (Qiao: into its relay workers; the floor:
// its one process), which records every request's emit, finish and connection gap, every GC
// pause, every time a 1 ms timer came back ≥ 2 ms late (the loop was busy, blocked, or the process
// was not running: at saturation that is most of the time) and every SQLite transaction the
// process ran on its event loop. After the warm-up the probes start over (SIGUSR2), the load runs,
// and they write what they saw. Prints, per target: the client's p50/p99/p99.9 (wrk), the same as
// the server saw it (gap + emit → finish), the pauses of each kind, and, for the requests at or
// above the server-side p99, how many waited through a GC pause, a late loop or a SQLite write,
// and how long, beside the share of all requests that did (a cause of the tail is one the slow
// requests meet far more often).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import {
  cleanup,
  fmt,
  load,
  parseArgs,
  ROOT,
  runMain,
  seedQiao,
  sleep,
  startFloor,
  startMockUpstream,
  startQiao,
  stopQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const seconds = Number(args.seconds ?? 10);
const warmup = Number(args.warmup ?? 3);
const connections = Number(args.connections ?? 50);
const mode = String(args.mode ?? "json");
const targets = String(args.targets ?? "floor-dispatch,qiao").split(",");
const rounds = Number(args.rounds ?? 1);
const entry = typeof args.entry === "string" ? args.entry : ".next/qiao/server.mjs";
/** An experiment: Qiao's relay workers never checkpoint the WAL (their transactions without it). */
const noCheckpoint = args["no-checkpoint"] === true;
if (!["json", "stream"].includes(mode) || !(seconds > 0) || !(rounds >= 1)) {
  console.error("usage: node bench/tail.mjs [--seconds 10] [--warmup 3] [--connections 50] [--mode json|stream] [--rounds 1]");
  process.exit(2);
}
const PROBE = path.join(ROOT, "bench/tail-probe.cjs");

function probeEnv(dir, any) {
  return {
    NODE_OPTIONS: `--require ${PROBE}`,
    TAIL_PROBE_DIR: dir,
    ...(any ? { TAIL_PROBE_ANY: "1" } : {}),
    ...(noCheckpoint ? { TAIL_PROBE_NO_CHECKPOINT: "1" } : {}),
  };
}

const probePids = (dir) =>
  readdirSync(dir)
    .filter((f) => f.startsWith("ready-"))
    .map((f) => Number(f.slice(6)));

/** SIGUSR2 to every probe of `dir`; returns the dumps they wrote (after waiting for them). */
async function dump(dir) {
  const pids = probePids(dir);
  const before = new Set(readdirSync(dir));
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const fresh = readdirSync(dir).filter((f) => f.startsWith("probe-") && !before.has(f));
    if (fresh.length === pids.length) {
      await sleep(300); // written whole (writeFileSync before the name is listed is not promised)
      return fresh.map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")));
    }
    if (Date.now() > deadline) throw new Error(`probes of ${dir} did not all write (${fresh.length}/${pids.length})`);
    await sleep(100);
  }
}

/** The size of the SQLite WAL in a Qiao's DATA_DIR, in MB (0 when there is none). */
function walMb(dataDir) {
  const wal = readdirSync(dataDir).find((f) => f.endsWith(".db-wal"));
  return wal ? statSync(path.join(dataDir, wal)).size / 1e6 : 0;
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN);
const sortNum = (a) => Float64Array.from(a).sort();

/** Total overlap (ms) of [a, b] with the sorted, non-nested intervals `iv` ([start, end] pairs). */
function overlap(iv, a, b) {
  // binary search the first interval ending after a
  let lo = 0;
  let hi = iv.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (iv[mid][1] <= a) lo = mid + 1;
    else hi = mid;
  }
  let sum = 0;
  for (let i = lo; i < iv.length && iv[i][0] < b; i++) sum += Math.min(b, iv[i][1]) - Math.max(a, iv[i][0]);
  return sum;
}

/** One process's recording, analysed. */
function analyse(p) {
  const gcIv = p.gc.filter((g) => g[2] !== "weakcb").map(([s, d, k]) => [s, s + d, k]);
  gcIv.sort((x, y) => x[0] - y[0]);
  const stalls = p.stalls.slice().sort((x, y) => x[0] - y[0]);
  const writes = p.writes.map(([s, e]) => [s, e]).sort((x, y) => x[0] - y[0]);
  const rows = p.requests
    .filter((r) => r[2] >= 0)
    .map(([emit, finish, gap]) => ({ start: emit - gap, emit, finish, seen: finish - emit + gap }));
  return { rows, gcIv, stalls, writes, pid: p.pid };
}

function report(name, client, procs) {
  const all = procs.flatMap((p) => p.rows.map((r) => ({ ...r, p })));
  const seen = sortNum(all.map((r) => r.seen));
  const service = sortNum(all.map((r) => r.finish - r.emit));
  const gap = sortNum(all.map((r) => r.emit - r.start));
  const p99 = pct(seen, 99);
  console.log(`\n== ${name}: ${fmt(client.rps, 0)} req/s; ${all.length} requests timed in ${procs.length} process(es)`);
  console.log(
    table(
      ["ms", "p50", "p99", "p99.9", "max"],
      [
        ["client (wrk)", fmt(client.p50, 2), fmt(client.p99, 2), fmt(client.p999, 2), ""],
        ["server: gap + emit → finish", fmt(pct(seen, 50), 2), fmt(p99, 2), fmt(pct(seen, 99.9), 2), fmt(seen.at(-1), 2)],
        ["  emit → finish", fmt(pct(service, 50), 2), fmt(pct(service, 99), 2), fmt(pct(service, 99.9), 2), fmt(service.at(-1), 2)],
        ["  gap on the connection", fmt(pct(gap, 50), 2), fmt(pct(gap, 99), 2), fmt(pct(gap, 99.9), 2), fmt(gap.at(-1), 2)],
      ],
    ),
  );
  // Pauses per process: how many a second, their mean, p99 and longest, and their share of the time.
  const pauseRows = [];
  const pauseRow = (pid, label, durations, span) => {
    if (!durations.length) return;
    const sorted = sortNum(durations);
    const sum = durations.reduce((a, b) => a + b, 0);
    pauseRows.push([
      pid,
      label,
      fmt(durations.length / span, 1),
      fmt(sum / durations.length, 2),
      fmt(pct(sorted, 99), 2),
      fmt(sorted.at(-1), 2),
      fmt(sum / span / 10, 2),
    ]);
  };
  for (const p of procs) {
    const span = p.rows.length ? (p.rows.at(-1).finish - p.rows[0].start) / 1000 : 1;
    for (const kind of ["minor", "incremental", "major"])
      pauseRow(
        p.pid,
        `gc ${kind}`,
        p.gcIv.filter((g) => g[2] === kind).map(([a, b]) => b - a),
        span,
      );
    pauseRow(
      p.pid,
      "loop late ≥ 2 ms",
      p.stalls.map(([a, b]) => b - a),
      span,
    );
    pauseRow(
      p.pid,
      "sqlite transaction",
      p.writes.map(([a, b]) => b - a),
      span,
    );
  }
  console.log(table(["pid", "pause", "per s", "mean ms", "p99 ms", "max ms", "% of time"], pauseRows));
  // The slow 1 % against everyone: how many met each kind of pause in their window, and how long.
  const slow = all.filter((r) => r.seen >= p99);
  const meet = (set, pick) => {
    let n = 0;
    let ms = 0;
    for (const r of set) {
      const o = overlap(pick(r.p), r.start, r.finish);
      if (o > 0) n++;
      ms += o;
    }
    return [set.length ? (100 * n) / set.length : NaN, set.length ? ms / set.length : NaN];
  };
  const rows = [];
  for (const [label, pick] of [
    ["gc (any)", (p) => p.gcIv],
    ["gc major / incremental", (p) => p.gcIv.filter((g) => g[2] !== "minor")],
    ["loop late ≥ 2 ms", (p) => p.stalls],
    ["sqlite transaction", (p) => p.writes],
  ]) {
    const cache = new Map();
    const cached = (p) => {
      if (!cache.has(p)) cache.set(p, pick(p));
      return cache.get(p);
    };
    const [sn, sms] = meet(slow, cached);
    const [an, ams] = meet(all, cached);
    rows.push([label, fmt(sn, 1), fmt(sms, 2), fmt(an, 1), fmt(ams, 3)]);
  }
  const slowSeen = slow.reduce((s, r) => s + r.seen, 0) / (slow.length || 1);
  console.log(`slow 1 %: ${slow.length} requests at ≥ ${fmt(p99, 2)} ms server-side (mean ${fmt(slowSeen, 2)} ms)`);
  console.log(table(["met in the request's window", "slow: % met", "slow: mean ms inside", "all: % met", "all: mean ms inside"], rows));
}

runMain(async () => {
  const work = tempDir("qiao-tail-");
  const upstream = await startMockUpstream();
  const started = {};
  if (targets.includes("floor-dispatch")) {
    const dir = tempDir("qiao-tail-floor-");
    started["floor-dispatch"] = { ...(await startFloor(upstream.url, "floor-dispatch", { env: probeEnv(dir, true) })), dir, key: null };
  }
  if (targets.includes("qiao")) {
    const dir = tempDir("qiao-tail-qiao-");
    const qiao = await startQiao({ entry, env: probeEnv(dir, false), echo: false });
    const { key } = await seedQiao(qiao, upstream.url);
    started.qiao = { qiao, url: qiao.url, dir, key };
  }
  for (let round = 1; round <= rounds; round++) {
    for (const name of targets) {
      const t = started[name];
      if (!t) throw new Error(`unknown target ${name}`);
      if (!existsSync(t.dir) || probePids(t.dir).length === 0) throw new Error(`${name}: no probe started (NODE_OPTIONS not honoured?)`);
      const stream = mode === "stream";
      if (warmup > 0) await load({ url: t.url, key: t.key, stream, connections, seconds: warmup, dir: work });
      await dump(t.dir); // drops the warm-up
      const client = await load({ url: t.url, key: t.key, stream, connections, seconds, dir: work });
      if (client.errors) throw new Error(`${name}: ${client.errors} errors (${client.detail})`);
      const procs = (await dump(t.dir)).map(analyse).filter((p) => p.rows.length > 0);
      report(`${name} ${mode} c=${connections}${rounds > 1 ? `, round ${round}` : ""}`, client, procs);
      if (t.qiao) console.log(`SQLite WAL at the end: ${fmt(walMb(t.qiao.dataDir), 1)} MB`);
    }
  }
  if (started.qiao) await stopQiao(started.qiao.qiao);
  await cleanup();
});
