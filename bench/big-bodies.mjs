// Big uploads beside normal load (issue 20.4): `npm start` with its relay workers, a normal load
// of small chat calls, and meanwhile N concurrent posts of a ~60 MB chat body with a valid key.
//   node bench/big-bodies.mjs [--workers 2] [--posts 40] [--mb 60] [--seconds 20] [--connections 10]
//                             [--entry .next/qiao/server.mjs] [--env K=V,K=V] [--tool wrk|autocannon]
// Prints each relay worker's RSS idle and its peak during the run (sampled every 100 ms, and its
// VmHWM), the normal load's req/s, p50 and p99, and what the big posts got (200, 503 with
// retry-after from the per-worker budget RELAY_BODY_BYTES_IN_FLIGHT, other). Goal: ≤ 300 MB per
// worker. Loopback only; bounded by --seconds and by a 120 s cap on each big post.
import http from "node:http";
import { readFileSync } from "node:fs";
import os from "node:os";
import {
  cmdline,
  descendants,
  fmt,
  hasWrk,
  load,
  MODEL,
  parseArgs,
  runMain,
  seedQiao,
  sleep,
  startMockUpstream,
  startQiao,
  statusOf,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const workers = Number(args.workers ?? 2);
const posts = Math.min(Number(args.posts ?? 40), 200);
const mb = Math.min(Number(args.mb ?? 60), 63);
const seconds = Math.min(Number(args.seconds ?? 20), 300);
const connections = Number(args.connections ?? 10);
const entry = typeof args.entry === "string" ? args.entry : null;
const extraEnv = Object.fromEntries((typeof args.env === "string" ? args.env.split(",") : []).map((kv) => kv.split("=")));
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));

function isWorker(pid) {
  try {
    return (
      /NODE_UNIQUE_ID=/.test(readFileSync(`/proc/${pid}/environ`, "utf8")) &&
      !/QIAO_ROLE=console/.test(readFileSync(`/proc/${pid}/environ`, "utf8"))
    );
  } catch {
    return false;
  }
}

/** One big post: the body is one shared buffer, written as fast as the relay takes it. */
function bigPost(url, key, body) {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/v1/chat/completions`,
      { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": body.length } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, retryAfter: res.headers["retry-after"] ?? null }));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ status: e.code ?? e.message, retryAfter: null }));
    req.end(body);
  });
}

runMain(async () => {
  console.log(
    `[big-bodies] node ${process.version}, ${os.cpus().length} cpu(s), loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${workers} relay worker(s); ${posts} posts of ${mb} MB beside ${seconds} s of c=${connections} small calls`,
  );
  const work = tempDir("qiao-big-bodies-");
  const upstream = await startMockUpstream();
  const qiao = await startQiao({ entry, env: { ...extraEnv, RELAY_WORKERS: String(workers) } });
  const { key } = await seedQiao(qiao, upstream.url);
  await sleep(2000);
  const workerPids = descendants(qiao.serverPid).filter(isWorker);
  if (workerPids.length !== workers) console.log(`  (found ${workerPids.length} relay workers: ${workerPids.map(cmdline).join("; ")})`);
  const idle = new Map(workerPids.map((pid) => [pid, statusOf(pid)]));
  const peak = new Map(workerPids.map((pid) => [pid, 0]));
  const timer = setInterval(() => {
    for (const pid of workerPids) peak.set(pid, Math.max(peak.get(pid), statusOf(pid)?.rss ?? 0));
  }, 100);

  const head = Buffer.from(`{"model":"${MODEL}","max_tokens":16,"messages":[{"role":"user","content":"`);
  const tail = Buffer.from(`"}]}`);
  const body = Buffer.alloc(mb * 1024 * 1024, "a");
  head.copy(body, 0);
  tail.copy(body, body.length - tail.length);

  let normal;
  let big;
  try {
    const normalRun = load({ url: qiao.url, key, stream: false, connections, seconds, dir: work, tool });
    await sleep(1000); // the normal load first, then the uploads arrive in its middle
    const started = Date.now();
    big = await Promise.all(Array.from({ length: posts }, () => bigPost(qiao.url, key, body)));
    big.elapsed = (Date.now() - started) / 1000;
    normal = await normalRun;
  } finally {
    clearInterval(timer);
  }

  const counts = new Map();
  for (const r of big) {
    const k = r.status === 503 ? `503 (retry-after ${r.retryAfter})` : String(r.status);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  console.log(`\nbig posts: ${[...counts].map(([k, n]) => `${n} × ${k}`).join(", ")}, all answered in ${fmt(big.elapsed, 1)} s`);
  console.log(
    `normal load: ${normal.requests} requests, ${fmt(normal.rps, 0)} req/s, p50 ${fmt(normal.p50, 2)} ms, p99 ${fmt(normal.p99, 2)} ms, errors ${normal.errors}${normal.detail ? ` (${normal.detail})` : ""}\n`,
  );
  const rows = workerPids.map((pid) => [pid, fmt(idle.get(pid)?.rss), fmt(peak.get(pid)), fmt(statusOf(pid)?.hwm)]);
  console.log(table(["relay worker", "idle RSS MB", "peak RSS MB (100 ms samples)", "VmHWM MB"], rows));
  const worst = Math.max(...workerPids.map((pid) => Math.max(peak.get(pid), statusOf(pid)?.hwm ?? 0)));
  console.log(`\nworst worker peak ${fmt(worst)} MB (goal ≤ 300 MB)`);
  return 0;
});
