// The tail probe of bench/tail.mjs, preloaded with NODE_OPTIONS="--require …/tail-probe.cjs" into
// Qiao's relay workers (cluster workers) and into the floor (TAIL_PROBE_ANY=1). It is bench code:
// nothing in the product loads it. Per process it records, on one clock (performance.now(), ms):
//   - every HTTP request: when the server emitted it, when its answer finished, and the gap on its
//     connection since the previous answer finished (the client's turnaround plus any time the
//     request waited for this process: with keep-alive, a request that arrives while the event loop
//     is busy is emitted late, and that wait shows in the gap, not in emit → finish);
//   - every garbage collection (start, duration, kind), from PerformanceObserver;
//   - every stall of the event loop: a 1 ms timer that came back ≥ STALL_MS late (start, end);
//   - every SQLite transaction the process ran through better-sqlite3 (start, end, statements);
//     with TAIL_PROBE_NO_CHECKPOINT=1 its connections never checkpoint the WAL (an experiment).
// SIGUSR2 writes what was recorded since the last SIGUSR2 to TAIL_PROBE_DIR/probe-<pid>-<n>.json
// and starts over, so the warm-up can be dropped and each load written on its own.
const dir = process.env.TAIL_PROBE_DIR;
const cluster = require("node:cluster");
if (dir && (cluster.isWorker || process.env.TAIL_PROBE_ANY === "1")) start();

function start() {
  const fs = require("node:fs");
  const path = require("node:path");
  const http = require("node:http");
  const { performance, PerformanceObserver, constants } = require("node:perf_hooks");
  const STALL_MS = 2;
  const MAX = 4_000_000;
  let emitted = new Float64Array(MAX);
  let finished = new Float64Array(MAX);
  let gaps = new Float64Array(MAX);
  let n = 0;
  let gc = [];
  let stalls = [];
  let writes = [];
  const lastEnd = new WeakMap();

  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === "request" && n < MAX) {
      const [req, res] = args;
      const t = performance.now();
      const i = n++;
      const socket = req.socket;
      const prev = lastEnd.get(socket);
      emitted[i] = t;
      gaps[i] = prev === undefined ? -1 : t - prev;
      finished[i] = -1;
      const series = emitted;
      res.once("finish", () => {
        if (series !== emitted) return; // recorded before the last dump
        const end = performance.now();
        finished[i] = end;
        lastEnd.set(socket, end);
      });
    }
    return emit.call(this, event, ...args);
  };

  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push([e.startTime, e.duration, kinds[e.detail?.kind] ?? String(e.detail?.kind)]);
  }).observe({ entryTypes: ["gc"] });

  let tick = performance.now();
  setInterval(() => {
    const t = performance.now();
    if (t - tick >= 1 + STALL_MS) stalls.push([tick + 1, t]);
    tick = t;
  }, 1).unref();

  try {
    const Database = require(require.resolve("better-sqlite3", { paths: [process.cwd()] }));
    const transaction = Database.prototype.transaction;
    const noCheckpoint = process.env.TAIL_PROBE_NO_CHECKPOINT === "1";
    Database.prototype.transaction = function (fn) {
      // An experiment (--no-checkpoint): this connection never checkpoints the WAL, so the
      // transactions' own cost shows apart from the checkpoints a commit may run.
      if (noCheckpoint) this.pragma("wal_autocheckpoint = 0");
      const made = transaction.call(this, fn);
      const timed = (run) =>
        function (statements, ...rest) {
          const t = performance.now();
          try {
            return run.call(this, statements, ...rest);
          } finally {
            writes.push([t, performance.now(), Array.isArray(statements) ? statements.length : 0]);
          }
        };
      const wrapped = timed(made);
      for (const k of ["deferred", "immediate", "exclusive"]) wrapped[k] = timed(made[k]);
      return wrapped;
    };
  } catch {
    // no better-sqlite3 here (the floor): no writes to record
  }

  let dumps = 0;
  fs.writeFileSync(path.join(dir, `ready-${process.pid}`), "");
  process.on("SIGUSR2", () => {
    const requests = [];
    for (let i = 0; i < n; i++) if (finished[i] >= 0) requests.push([emitted[i], finished[i], gaps[i]]);
    const file = path.join(dir, `probe-${process.pid}-${dumps++}.json`);
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid, requests, gc, stalls, writes }));
    emitted = new Float64Array(MAX);
    finished = new Float64Array(MAX);
    gaps = new Float64Array(MAX);
    n = 0;
    gc = [];
    stalls = [];
    writes = [];
  });
}
