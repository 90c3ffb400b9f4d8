// CPU per request: where the box's CPU time goes while Qiao relays under load.
//   node bench/cpu.mjs [--seconds 10] [--connections 50] [--mode json,stream,messages-stream|both]
//                      [--tool wrk]
//                      [--entry <built server.mjs>] [--limits]
// Starts the mock upstream, both floors and Qiao (as bench/run.mjs does), loads each, and prints
// the CPU microseconds per completed request of every process involved (from /proc/<pid>/stat:
// user + system time), so a change to the relay can be judged by its own cost rather than by
// req/s on a CPU shared with the load generator and the upstream.
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
  SCENARIOS,
  seedQiao,
  sleep,
  startFloor,
  startMockUpstream,
  startQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
// "both" is what it meant before the Messages stream: the two chat modes.
const modes = args.mode === "both" ? ["json", "stream"] : String(args.mode ?? Object.keys(SCENARIOS).join(",")).split(",");
const unknownMode = modes.find((m) => !Object.hasOwn(SCENARIOS, m));
if (unknownMode) {
  console.error(`unknown --mode ${unknownMode}; known: ${Object.keys(SCENARIOS).join(", ")}, both`);
  process.exit(2);
}
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
/** A built server bundle to run directly (two builds compared without rebuilding); else scripts/start.mjs. */
const entry = typeof args.entry === "string" ? args.entry : null;
const withLimits = args.limits === true;

function label(pid) {
  try {
    const cmd = cmdline(pid);
    const env = readFileSync(`/proc/${pid}/environ`, "utf8");
    if (/QIAO_ROLE=console/.test(env)) return "qiao console";
    if (/server\.(ts|mjs)/.test(cmd) && /NODE_UNIQUE_ID=/.test(env)) return "qiao relay worker";
    if (/server\.(ts|mjs)/.test(cmd)) return "qiao primary";
    if (/floor\.mjs/.test(cmd)) return "floor";
    if (/floor-dispatch\.mjs/.test(cmd)) return "floor-dispatch";
    if (/mock-upstream\.mjs/.test(cmd)) return "mock upstream";
    if (/scripts\/start\.mjs/.test(cmd)) return "start.mjs";
    return cmd.slice(0, 40);
  } catch {
    return `pid ${pid}`;
  }
}

/** CPU seconds the whole box spent busy (all cores, every process) since boot. */
const boxBusy = () => os.cpus().reduce((s, c) => s + c.times.user + c.times.sys + c.times.irq + c.times.nice, 0) / 1000;

/** Runs the load while watching the CPU of `pids` and of the whole box. */
async function measure(pids, target) {
  const before = new Map(pids.map((p) => [p, cpuOf(p)]));
  const busy0 = boxBusy();
  const r = await load({ ...target, connections, seconds, dir: work, tool });
  const busy = boxBusy() - busy0;
  if (r.errors) throw new Error(`${r.errors} errors: ${r.detail}`);
  const rows = [];
  let sum = 0;
  for (const p of pids) {
    const used = cpuOf(p) - before.get(p);
    if (!(used > 0)) continue;
    sum += used;
    rows.push([label(p), p, fmt((used / r.requests) * 1e6, 1)]);
  }
  return { r, rows, sum, busy };
}

const work = tempDir("qiao-cpu-");

runMain(async () => {
  console.log(`[cpu] node ${process.version}, ${os.cpus().length} cpu(s); ${seconds} s at c=${connections}`);
  const upstream = await startMockUpstream();
  const floor = await startFloor(upstream.url);
  const floorDispatch = await startFloor(upstream.url, "floor-dispatch");
  const qiao = await startQiao({ echo: false, entry });
  const { key } = await seedQiao(qiao, upstream.url);
  await sleep(500);
  const targets = [
    { name: "floor", url: floor.url, key: null, pids: [floor.child.pid, upstream.child.pid] },
    { name: "floor-dispatch", url: floorDispatch.url, key: null, pids: [floorDispatch.child.pid, upstream.child.pid] },
    { name: "qiao", url: qiao.url, key, pids: [qiao.serverPid, ...descendants(qiao.serverPid), upstream.child.pid] },
  ];
  if (withLimits) {
    const limited = await startQiao({ echo: false, entry });
    const seeded = await seedQiao(limited, upstream.url, { limits: true });
    await sleep(500);
    targets.push({
      name: "qiao limits=on",
      url: limited.url,
      key: seeded.key,
      pids: [limited.serverPid, ...descendants(limited.serverPid), upstream.child.pid],
    });
  }
  for (const mode of modes) {
    for (const t of targets) {
      await load({ url: t.url, key: t.key, scenario: mode, connections, seconds: 2, dir: work, tool }); // warm-up
      const { r, rows, sum, busy } = await measure(t.pids, { url: t.url, key: t.key, scenario: mode });
      console.log(
        `\n${t.name} ${mode} c=${connections}: ${fmt(r.rps, 0)} req/s; whole box ${fmt((busy / r.requests) * 1e6, 1)} µs/request (all processes, wrk included)`,
      );
      console.log(table(["process", "pid", "CPU µs/request"], [...rows, ["sum of the above", "", fmt((sum / r.requests) * 1e6, 1)]]));
    }
  }
});
