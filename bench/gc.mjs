// Garbage collection in the relay workers under load, with node flags (or builds) compared.
//   node bench/gc.mjs [--seconds 10] [--connections 50] [--mode json|stream|messages-stream]
//                     [--rounds 2] [--limits] [--entry .next/qiao/server.mjs]
//                     [--flags=default;--max-semi-space-size=2] [--tool wrk|autocannon]
// Starts the mock upstream and one Qiao per flag set (";" between sets, "default" for the build's
// own, several flags of one set joined by spaces), each with --trace-gc; the primary passes its
// node flags on to the relay workers, after the workers' own, so a set overrides them. Loads each
// in turn, the order alternating every round, and prints per completed request: the workers' CPU
// µs, young-generation collections (and how many requests one comes after), their pause µs, the
// full collections' pause µs and the share of the workers' CPU the collector took. `--entry`
// takes several built bundles the same way (";" between them) to compare builds instead; build one
// with `node scripts/build.mjs` (or `npm start` once) and others with bench/build-variant.mjs.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import {
  cpuOf,
  descendants,
  fmt,
  hasWrk,
  load,
  parseArgs,
  ROOT,
  runMain,
  SCENARIOS,
  seedQiao,
  sleep,
  startMockUpstream,
  startQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 2);
const mode = String(args.mode ?? "json");
if (!Object.hasOwn(SCENARIOS, mode)) {
  console.error(`unknown --mode ${mode}; known: ${Object.keys(SCENARIOS).join(", ")}`);
  process.exit(2);
}
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const entries = String(args.entry ?? ".next/qiao/server.mjs").split(";");
const flagSets = String(args.flags ?? "default").split(";");
for (const e of entries) {
  if (!existsSync(path.resolve(ROOT, e))) {
    console.error(`no ${e}: build it first (node scripts/build.mjs, or bench/build-variant.mjs)`);
    process.exit(2);
  }
}
const configs = entries.flatMap((entry) =>
  flagSets.map((flags) => ({
    entry,
    flags: flags === "default" ? [] : flags.split(" ").filter(Boolean),
    name: [entries.length > 1 ? entry : "", flags].filter(Boolean).join(" "),
  })),
);

const isWorker = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").includes("NODE_UNIQUE_ID=");
  } catch {
    return false;
  }
};

/** The --trace-gc lines' pauses: "Scavenge 9.8 (12.1) -> 2.3 (12.6) MB, 0.85 / 0.00 ms". */
function pauses(text) {
  const out = { young: 0, youngMs: 0, full: 0, fullMs: 0 };
  for (const m of text.matchAll(/: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact)\b[^\n]*?, ([\d.]+) \/ [\d.]+ ms/g)) {
    const ms = Number(m[2]);
    if (m[1] === "Scavenge" || m[1] === "Minor Mark-Compact") {
      out.young++;
      out.youngMs += ms;
    } else {
      out.full++;
      out.fullMs += ms;
    }
  }
  return out;
}

const work = tempDir("qiao-gc-");

runMain(async () => {
  console.log(
    `[gc] node ${process.version}; ${mode} at c=${connections}, ${seconds} s, ${rounds} round(s)${args.limits ? ", limits on" : ""}`,
  );
  const upstream = await startMockUpstream();
  const qiaos = [];
  for (const c of configs) {
    const qiao = await startQiao({ echo: false, entry: c.entry, nodeArgs: ["--trace-gc", ...c.flags] });
    const { key } = await seedQiao(qiao, upstream.url, { limits: args.limits === true });
    qiaos.push({ ...c, qiao, key, workers: descendants(qiao.serverPid).filter(isWorker), rows: [] });
  }
  await sleep(500);
  for (const q of qiaos) await load({ url: q.qiao.url, key: q.key, scenario: mode, connections, seconds: 3, dir: work, tool });
  for (let r = 0; r < rounds; r++) {
    for (const q of r % 2 ? [...qiaos].reverse() : qiaos) {
      const logAt = statSync(q.qiao.logFile).size;
      const cpu0 = q.workers.map(cpuOf);
      const res = await load({ url: q.qiao.url, key: q.key, scenario: mode, connections, seconds, dir: work, tool });
      if (res.errors) throw new Error(`${q.name}: ${res.errors} errors: ${res.detail}`);
      const cpu = q.workers.reduce((sum, pid, i) => sum + cpuOf(pid) - cpu0[i], 0);
      const p = pauses(readFileSync(q.qiao.logFile, "utf8").slice(logAt));
      const n = res.requests;
      q.rows.push([
        q.name || "default",
        r + 1,
        fmt(res.rps, 0),
        fmt((cpu / n) * 1e6, 1),
        p.young,
        fmt(n / Math.max(1, p.young), 0), // in one worker too: it serves its share of both
        fmt(((p.youngMs / 1000) * 1e6) / n, 2),
        fmt(((p.fullMs / 1000) * 1e6) / n, 2),
        `${fmt((100 * (p.youngMs + p.fullMs)) / 1000 / cpu, 1)} %`,
      ]);
    }
  }
  console.log(
    table(
      [
        "flags",
        "round",
        "req/s",
        "worker CPU µs/req",
        "young GCs",
        "requests per young GC",
        "young GC µs/req",
        "full GC µs/req",
        "GC ÷ CPU",
      ],
      qiaos.flatMap((q) => q.rows),
    ),
  );
});
