// Soak: Qiao at c=50, non-stream, for N minutes (10 by default, `npm run bench:soak`), loaded one
// minute at a time back to back; RSS of all server.ts processes every 10 s.
//   node bench/soak.mjs [--minutes 10] [--connections 50] [--interval 10] [--warmup 10]
//                       [--tool wrk|autocannon] [--start-timeout 1200]
// Prints, per minute, req/s, p50, p99 and p99.9 and each relay worker's p99 event-loop delay, then
// the RSS series and least-squares slopes (MB/min) over the whole run and over its second half
// (after the heap has had time to settle), and the p99's slope and last ÷ first minute, so "flat
// RSS and flat p99 from the first minute to the last" (issue 29) can be judged. Billing is checked
// exactly at the end (a consume row per answer, quota taken = used_quota added = the rows' quota).
import os from "node:os";
import {
  BENCH_METRICS_TOKEN,
  checkLedger,
  fmt,
  hasWrk,
  ledgerSnapshot,
  load,
  parseArgs,
  relayLoopDelays,
  rssOf,
  runMain,
  seedQiao,
  settleLedger,
  startMockUpstream,
  startQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const minutes = Number(args.minutes ?? 10);
const connections = Number(args.connections ?? 50);
const intervalS = Number(args.interval ?? 10);
const warmup = Number(args.warmup ?? 10);
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
if (!Number.isInteger(minutes) || !(minutes > 0) || !(connections >= 1) || !(intervalS >= 1) || !(warmup >= 0)) {
  console.error("usage: node bench/soak.mjs [--minutes 10 (whole minutes)] [--connections 50] [--interval 10] [--warmup 10]");
  process.exit(2);
}

/** Least-squares slope of [tSeconds, mb] points, in MB per minute. */
function slope(points) {
  if (points.length < 2) return NaN;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) (num += (x - mx) * (y - my)), (den += (x - mx) ** 2);
  return den ? (num / den) * 60 : NaN;
}

runMain(async () => {
  console.log(
    `[soak] node ${process.version}, ${os.cpus().length} cpu(s), loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; tool=${tool} ${minutes} min at c=${connections}, RSS every ${intervalS} s`,
  );
  const work = tempDir("qiao-soak-work-");
  const upstream = await startMockUpstream();
  const qiao = await startQiao({ startTimeoutMs, env: { METRICS_TOKEN: BENCH_METRICS_TOKEN } });
  const { api, key } = await seedQiao(qiao, upstream.url);
  console.log(`[soak] Qiao ${qiao.url}, server.ts pid ${qiao.serverPid}; idle RSS ${fmt(rssOf(qiao.serverPid).rss)} MB`);
  let sent = 0;
  /** Requests cut off when a load stopped (a warm-up's may be billed after the baseline). */
  let cut = 0;
  if (warmup > 0) {
    const w = await load({ url: qiao.url, key, stream: false, connections, seconds: warmup, dir: work, tool });
    if (w.errors) throw new Error(`warm-up: ${w.errors} errors (${w.detail})`);
    sent += w.requests;
    cut += connections;
    console.log(`[soak] warm-up ${warmup} s: ${fmt(w.rps, 0)} req/s`);
  }
  // The baseline once the warm-up's last answers are written (holds closed, rows and usage in).
  const before = await settleLedger(api, await ledgerSnapshot(api), 0);

  const seconds = minutes * 60;
  const series = [];
  const t0 = Date.now();
  const sample = () => {
    const t = (Date.now() - t0) / 1000;
    const { rss, hwm } = rssOf(qiao.serverPid);
    series.push([t, rss, hwm]);
    console.log(`[soak] t=${fmt(t, 0).padStart(4)} s  RSS ${fmt(rss)} MB, all processes  (sum of peaks ${fmt(hwm)} MB)`);
  };
  sample();
  const timer = setInterval(sample, intervalS * 1000);
  const perMinute = [];
  let measured = 0;
  try {
    for (let m = 1; m <= minutes; m++) {
      const r = await load({ url: qiao.url, key, stream: false, connections, seconds: 60, dir: work, tool });
      const loop = await relayLoopDelays(qiao);
      sent += r.requests;
      measured += r.requests;
      cut += connections;
      perMinute.push({ m, ...r, loop });
      console.log(
        `[soak] minute ${m}: ${fmt(r.rps, 0)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  p99.9 ${fmt(r.p999, 2)} ms  errors ${r.errors}` +
          (loop
            ? `  loop delay p99 ${Object.entries(loop)
                .map(([w, ms]) => `${w} ${fmt(ms, 2)}`)
                .join(", ")} ms`
            : ""),
      );
    }
  } finally {
    clearInterval(timer);
  }
  if (Date.now() - t0 - series.at(-1)[0] * 1000 > 1000) sample();

  const after = await settleLedger(api, before, measured);
  const pts = series.map(([t, mb]) => [t, mb]);
  const half = pts.filter(([t]) => t >= seconds / 2);
  console.log(
    `\n${table(
      ["minute", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "errors", "relay workers' loop delay p99 (ms)"],
      perMinute.map((r) => [
        r.m,
        fmt(r.rps, 0),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        fmt(r.p999, 2),
        r.errors,
        r.loop
          ? Object.values(r.loop)
              .map((ms) => fmt(ms, 2))
              .join(", ")
          : "",
      ]),
    )}\n`,
  );
  const p99s = perMinute.map((r) => [r.m * 60, r.p99]);
  console.log(
    `p99: first minute ${fmt(perMinute[0].p99, 2)} ms, last ${fmt(perMinute.at(-1).p99, 2)} ms (last ÷ first ${fmt(perMinute.at(-1).p99 / perMinute[0].p99, 2)}), ` +
      `slope ${perMinute.length > 1 ? fmt(slope(p99s), 3) : "—"} ms/min`,
  );
  console.log(`RSS series (s, MB): ${pts.map(([t, mb]) => `${fmt(t, 0)}:${fmt(mb)}`).join(" ")}`);
  console.log(
    `RSS first ${fmt(pts[0][1])} MB, last ${fmt(pts.at(-1)[1])} MB, min ${fmt(Math.min(...pts.map((p) => p[1])))} MB, max ${fmt(Math.max(...pts.map((p) => p[1])))} MB, peak VmHWM ${fmt(series.at(-1)[2])} MB`,
  );
  // GC makes RSS saw-tooth; the per-minute minima (the troughs) show growth that survives GC.
  const troughs = [];
  for (const p of pts) {
    const m = Math.floor(p[0] / 60);
    if (!troughs[m] || p[1] < troughs[m][1]) troughs[m] = p;
  }
  const minima = troughs.filter(Boolean);
  console.log(`RSS slope: ${fmt(slope(pts), 2)} MB/min over the whole run, ${fmt(slope(half), 2)} MB/min over the second half`);
  console.log(
    `per-minute RSS minima: ${minima.map(([t, mb]) => `${fmt(t, 0)}s:${fmt(mb)}`).join(" ")}; slope ${minima.length > 1 ? fmt(slope(minima), 2) : "— (needs ≥ 2 minutes)"} MB/min`,
  );
  const billing = checkLedger(before, after, { completed: measured, slack: cut });
  console.log(`billing: ${billing.lines.join("\n")}`);
  const failures = [...billing.failures];
  const errors = perMinute.reduce((n, r) => n + r.errors, 0);
  if (errors) failures.push(`${errors} errors (${perMinute.find((r) => r.errors).detail})`);
  if (failures.length) {
    console.error(`\n[soak] FAILED: ${failures.join("; ")}`);
    return 1;
  }
  console.log(`\n[soak] OK (${sent} requests in all, warm-up included)`);
  return 0;
});
