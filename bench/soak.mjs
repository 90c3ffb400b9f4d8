// RSS soak: Qiao at c=50, non-stream, for N minutes; RSS of all server.ts processes every 10 s.
//   node bench/soak.mjs [--minutes 5] [--connections 50] [--interval 10] [--warmup 10]
//                       [--tool wrk|autocannon] [--start-timeout 1200]
// Prints the RSS series and least-squares slopes (MB/min) over the whole run and over its second
// half (after the heap has had time to settle), so "RSS flat over a 5-minute run" can be judged.
import os from "node:os";
import { fmt, hasWrk, load, parseArgs, rssOf, runMain, seedQiao, sleep, startMockUpstream, startQiao, tempDir } from "./lib.mjs";

const args = parseArgs();
const minutes = Number(args.minutes ?? 5);
const connections = Number(args.connections ?? 50);
const intervalS = Number(args.interval ?? 10);
const warmup = Number(args.warmup ?? 10);
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
if (!(minutes > 0) || !(connections >= 1) || !(intervalS >= 1) || !(warmup >= 0)) {
  console.error("usage: node bench/soak.mjs [--minutes 5] [--connections 50] [--interval 10] [--warmup 10]");
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
  const qiao = await startQiao({ startTimeoutMs });
  const { api, key } = await seedQiao(qiao, upstream.url);
  console.log(`[soak] Qiao ${qiao.url}, server.ts pid ${qiao.serverPid}; idle RSS ${fmt(rssOf(qiao.serverPid).rss)} MB`);
  let sent = 0;
  if (warmup > 0) {
    const w = await load({ url: qiao.url, key, stream: false, connections, seconds: warmup, dir: work, tool });
    if (w.errors) throw new Error(`warm-up: ${w.errors} errors (${w.detail})`);
    sent += w.requests;
    console.log(`[soak] warm-up ${warmup} s: ${fmt(w.rps, 0)} req/s`);
  }
  const before = await api.self();
  const logsBefore = await api.consumeLogTotal();

  const seconds = Math.round(minutes * 60);
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
  let r;
  try {
    r = await load({ url: qiao.url, key, stream: false, connections, seconds, dir: work, tool });
  } finally {
    clearInterval(timer);
  }
  if (Date.now() - t0 - series.at(-1)[0] * 1000 > 1000) sample();
  sent += r.requests;

  // Let the ledger write the tail, bounded.
  let logsAfter = await api.consumeLogTotal();
  for (let i = 0; i < 30 && logsAfter - logsBefore < r.requests; i++) await sleep(500), (logsAfter = await api.consumeLogTotal());
  const after = await api.self();
  const pts = series.map(([t, mb]) => [t, mb]);
  const half = pts.filter(([t]) => t >= seconds / 2);
  console.log(`\nRSS series (s, MB): ${pts.map(([t, mb]) => `${fmt(t, 0)}:${fmt(mb)}`).join(" ")}`);
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
  console.log(`load: ${r.requests} requests, ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, errors ${r.errors}`);
  console.log(
    `billing: consume log rows +${logsAfter - logsBefore}, root quota ${before.quota} → ${after.quota}, used_quota +${after.used_quota - before.used_quota}`,
  );
  const failures = [];
  if (r.errors) failures.push(`${r.errors} errors (${r.detail})`);
  if (!(before.quota > after.quota)) failures.push("root's quota did not go down");
  if (logsAfter - logsBefore < r.requests) failures.push(`${logsAfter - logsBefore} consume log rows for ${r.requests} completed requests`);
  if (failures.length) {
    console.error(`\n[soak] FAILED: ${failures.join("; ")}`);
    return 1;
  }
  console.log(`\n[soak] OK (${sent} requests in all, warm-up included)`);
  return 0;
});
