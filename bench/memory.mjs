// Memory of `npm start`, process by process: idle after seeding, then under load at c=50.
//   node bench/memory.mjs [--workers 2] [--seconds 20] [--connections 50] [--mode json|stream]
//                         [--entry .next/qiao/server.mjs] [--node-args "…"] [--env K=V,K=V] [--interval 1]
//                         [--tool wrk|autocannon]
// Prints each process's RSS (primary, console, every relay worker) idle and under load (the
// highest sample and the last one) and their sum, and the relay workers' CPU µs per request.
// Without --entry Qiao starts through scripts/start.mjs (building first when the sources changed);
// with it, that built server bundle runs directly, so two builds can be compared without
// rebuilding Next.
import { readFileSync } from "node:fs";
import os from "node:os";
import {
  cmdline,
  cpuOf,
  descendants,
  fmt,
  hasWrk,
  load,
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
const seconds = Number(args.seconds ?? 20);
const connections = Number(args.connections ?? 50);
const intervalS = Number(args.interval ?? 1);
const stream = String(args.mode ?? "json") === "stream";
const entry = typeof args.entry === "string" ? args.entry : null;
const nodeArgs = typeof args["node-args"] === "string" ? args["node-args"].split(" ").filter(Boolean) : [];
const extraEnv = Object.fromEntries((typeof args.env === "string" ? args.env.split(",") : []).map((kv) => kv.split("=")));
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));

function label(pid) {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8");
    if (/QIAO_ROLE=console/.test(env)) return "console";
    if (/NODE_UNIQUE_ID=/.test(env)) return "relay worker";
    if (/server[\w-]*\.(ts|mjs)/.test(cmdline(pid))) return "primary";
    return cmdline(pid).slice(0, 40);
  } catch {
    return null;
  }
}

const snapshot = (root) => {
  const out = new Map();
  for (const pid of [root, ...descendants(root)]) {
    const who = label(pid);
    const s = statusOf(pid);
    if (who && s) out.set(pid, { who, ...s });
  }
  return out;
};

runMain(async () => {
  console.log(
    `[memory] node ${process.version}, ${os.cpus().length} cpu(s), loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        " ",
      )}; ${workers} relay worker(s), ${seconds} s at c=${connections} (${stream ? "stream" : "json"}), ${entry ?? "scripts/start.mjs"} ${nodeArgs.join(" ")}`,
  );
  const work = tempDir("qiao-memory-work-");
  const upstream = await startMockUpstream();
  const qiao = await startQiao({ entry, nodeArgs, env: { ...extraEnv, RELAY_WORKERS: String(workers) } });
  const { key } = await seedQiao(qiao, upstream.url);
  await sleep(2000);
  const idle = snapshot(qiao.serverPid);
  const cpuBefore = new Map([...idle.keys()].map((pid) => [pid, cpuOf(pid)]));
  const peak = new Map();
  const timer = setInterval(() => {
    for (const [pid, s] of snapshot(qiao.serverPid)) {
      const p = peak.get(pid);
      if (!p || s.rss > p.rss) peak.set(pid, s);
    }
  }, intervalS * 1000);
  let r;
  try {
    r = await load({ url: qiao.url, key, stream, connections, seconds, dir: work, tool });
  } finally {
    clearInterval(timer);
  }
  const end = snapshot(qiao.serverPid);
  // CPU per request of the relay workers: what a memory setting costs in speed, robust to other load.
  let workerCpu = 0;
  for (const [pid, s] of end) if (s.who === "relay worker") workerCpu += cpuOf(pid) - (cpuBefore.get(pid) ?? Number.NaN);
  const pids = [...new Set([...idle.keys(), ...end.keys()])].sort((a, b) => a - b);
  const rows = [];
  const sum = { idle: 0, peak: 0, end: 0, hwm: 0 };
  for (const pid of pids) {
    const i = idle.get(pid);
    const p = peak.get(pid);
    const e = end.get(pid);
    const who = (i ?? e).who;
    rows.push([who, pid, fmt(i?.rss), fmt(p?.rss), fmt(e?.rss), fmt(e?.hwm)]);
    sum.idle += i?.rss ?? 0;
    sum.peak += p?.rss ?? 0;
    sum.end += e?.rss ?? 0;
    sum.hwm += e?.hwm ?? 0;
  }
  rows.push(["all", "", fmt(sum.idle), fmt(sum.peak), fmt(sum.end), fmt(sum.hwm)]);
  console.log(
    `\nload: ${r.requests} requests, ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, errors ${r.errors}; relay workers ${fmt((workerCpu / r.requests) * 1e6, 0)} CPU µs per request\n`,
  );
  console.log(table(["process", "pid", "idle RSS MB", "load max MB", "load end MB", "peak VmHWM MB"], rows));
  return r.errors ? 1 : 0;
});
