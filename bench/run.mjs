// Relay throughput/latency benchmark: upstream direct vs the two floors vs Qiao.
//   node bench/run.mjs [--duration 30] [--quick] [--warmup 5] [--connections 1,50] [--rounds 1]
//                      [--modes json,stream,messages-stream] [--tool wrk|autocannon] [--threads 1]
//                      [--start-timeout 1200] [--entry <built server.mjs>] [--limits | --compare-limits]
// Starts the mock upstream, the floors and Qiao (`node scripts/start.mjs`, fresh temp DATA_DIR;
// with --entry that built server bundle runs directly, to compare two builds without rebuilding),
// seeds Qiao through its /api, then for each mode × concurrency loads every target in turn
// (`--rounds` times, alternating the order; the table shows medians) and prints one table, then
// the two streams' ratios side by side: OpenAI chat (converted by nothing, read for usage) and
// Anthropic's Messages API passed through to a Claude channel. The targets of one point run back
// to back, so a box whose speed drifts moves them together. Any non-2xx answer or socket error
// fails the run (exit 1). Afterwards it checks that Qiao billed the traffic exactly (lib.mjs
// checkLedger: a log row per answer, quota taken = used_quota added = the rows' quota). --limits puts generous key and user limits on Qiao's token
// (lib.mjs BENCH_LIMITS: rpm, tpm, concurrency; none trips), to measure what counting them costs.
// --compare-limits starts two Qiaos, one without limits and one with them, and loads them back to
// back in every point (the order alternating with --rounds: give an even number, so each goes
// first as often), so their quotient is not moved by the box drifting between two separate runs;
// the quotient shown is the median of each round's own; each one's billing is checked.
import os from "node:os";
import {
  BENCH_LIMITS,
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
  sleep,
  startFloor,
  startMockUpstream,
  SCENARIOS,
  settleLedger,
  startQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const quick = args.quick === true;
const duration = Number(args.duration ?? (quick ? 5 : 30));
const warmup = Number(args.warmup ?? (quick ? 2 : 5));
const connections = String(args.connections ?? "1,50")
  .split(",")
  .map(Number);
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const threads = Number(args.threads ?? 1);
const rounds = Number(args.rounds ?? 1);
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
const entry = typeof args.entry === "string" ? args.entry : null;
const modes = String(args.modes ?? Object.keys(SCENARIOS).join(",")).split(",");
const compareLimits = args["compare-limits"] === true;
const limits = args.limits === true;
// Which targets to load (default: all). The limits comparison needs only the two Qiaos.
const only = typeof args.targets === "string" ? args.targets.split(",") : null;
if (
  !(duration > 0) ||
  !(warmup >= 0) ||
  !(rounds >= 1) ||
  (limits && compareLimits) ||
  only?.some((t) => !["upstream", "floor", "floor-dispatch", "qiao", "qiao-limits"].includes(t)) ||
  connections.some((c) => !(c >= 1)) ||
  modes.some((m) => !Object.hasOwn(SCENARIOS, m))
) {
  console.error(
    `usage: node bench/run.mjs [--duration 30] [--quick] [--warmup 5] [--connections 1,50] [--rounds 1] [--modes ${Object.keys(SCENARIOS).join(",")}] [--tool wrk|autocannon] [--limits | --compare-limits] [--targets upstream,floor,floor-dispatch,qiao,qiao-limits]`,
  );
  process.exit(2);
}

runMain(async () => {
  console.log(
    `[bench] node ${process.version}, ${os.cpus().length} cpu(s), loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ` +
      `tool=${tool} duration=${duration}s warmup=${warmup}s connections=${connections.join(",")} rounds=${rounds} modes=${modes.join(",")}` +
      (limits || compareLimits
        ? ` limits=${limits ? "on" : "off and on, two Qiaos"} (key and user: rpm ${BENCH_LIMITS.rpm}, tpm ${BENCH_LIMITS.tpm}, concurrency ${BENCH_LIMITS.concurrency})`
        : ""),
  );
  if (compareLimits && rounds % 2 === 1 && rounds > 1) {
    console.warn(
      `[bench] --rounds ${rounds} is odd: one Qiao goes first in one round more than the other (an even number balances the order)`,
    );
  }
  const work = tempDir("qiao-bench-work-");
  const upstream = await startMockUpstream();
  const floor = await startFloor(upstream.url);
  const floorDispatch = await startFloor(upstream.url, "floor-dispatch");
  console.log(
    `[bench] mock upstream ${upstream.url}, floor ${floor.url}, dispatch floor ${floorDispatch.url}; starting Qiao (builds first if sources changed)…`,
  );
  const qiaos = [];
  for (const withLimits of compareLimits ? [false, true] : [limits]) {
    const name = compareLimits && withLimits ? "qiao-limits" : "qiao";
    const t0 = Date.now();
    const qiao = await startQiao({ startTimeoutMs, entry, label: name, env: { METRICS_TOKEN: BENCH_METRICS_TOKEN } });
    console.log(
      `[bench] ${name} ${qiao.url} ready after ${((Date.now() - t0) / 1000).toFixed(1)} s; server.ts pid ${qiao.serverPid} (+ console and relay worker processes), DATA_DIR ${qiao.dataDir}`,
    );
    const { api, key } = await seedQiao(qiao, upstream.url, { limits: withLimits });
    // The baseline once the seeding calls are written (holds closed, rows and usage in).
    const before = await settleLedger(api, await ledgerSnapshot(api), 0);
    const rssIdle = rssOf(qiao.serverPid);
    console.log(
      `[bench] ${name} seeded (OpenAI and Claude channels → mock, token sk-…${key.slice(-4)}${withLimits ? ", limits on" : ""}); idle RSS ${fmt(rssIdle.rss)} MB`,
    );
    // requests: completed answers, warm-ups included; slack: requests cut off when a run stopped
    // (may or may not be billed).
    qiaos.push({ name, server: qiao, api, key, before, rssIdle, requests: 0, slack: 0 });
  }

  const targets = [
    { name: "upstream", url: upstream.url, key: "" },
    { name: "floor", url: floor.url, key: "" },
    { name: "floor-dispatch", url: floorDispatch.url, key: "" },
    ...qiaos.map((q) => ({ name: q.name, url: q.server.url, key: q.key, qiao: q })),
  ].filter((t) => !only || only.includes(t.name));
  const rows = [];
  const failures = [];
  const counted = (target, r, c) => {
    if (target.qiao) (target.qiao.requests += r.requests), (target.qiao.slack += c);
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];

  for (const mode of modes) {
    if (warmup > 0) {
      const c = Math.max(...connections);
      for (const target of targets) {
        const w = await load({
          url: target.url,
          key: target.key,
          scenario: mode,
          connections: c,
          seconds: warmup,
          threads,
          dir: work,
          tool,
        });
        counted(target, w, c);
        if (w.errors) failures.push(`${target.name} ${mode} warm-up c=${c}: ${w.errors} errors (${w.detail})`);
      }
    }
    for (const c of connections) {
      const samples = new Map(targets.map((t) => [t.name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const target of round % 2 ? [...targets].reverse() : targets) {
          const qiao = target.qiao?.server;
          const rss0 = qiao ? rssOf(qiao.serverPid) : null;
          const r = await load({
            url: target.url,
            key: target.key,
            scenario: mode,
            connections: c,
            seconds: duration,
            threads,
            dir: work,
            tool,
          });
          const rss1 = qiao ? rssOf(qiao.serverPid) : null;
          // The relay workers' event-loop delay p99 over the run's last 5–10 s (read right after it).
          const loop = qiao ? await relayLoopDelays(qiao) : null;
          counted(target, r, c);
          if (r.errors) failures.push(`${target.name} ${mode} c=${c}: ${r.errors} errors (${r.detail})`);
          samples.get(target.name).push({ ...r, rss0, rss1, loop });
          console.log(
            `[bench] ${target.name.padEnd(14)} ${mode.padEnd(15)} c=${String(c).padEnd(3)} ${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  p99.9 ${fmt(r.p999, 2)} ms  errors ${r.errors}` +
              (rss0 ? `  RSS ${fmt(rss0.rss)}→${fmt(rss1.rss)} MB` : "") +
              (loop ? `  loop delay p99 ${loopText(loop)}` : ""),
          );
          await sleep(1000);
        }
      }
      // Limits on ÷ off: the median of each round's own quotient (its two runs were back to back),
      // so a round on a slow moment of the box counts as one round, not as a slow "on" or "off".
      const offRuns = samples.get("qiao");
      const onRuns = samples.get("qiao-limits");
      const paired = offRuns && onRuns ? median(onRuns.map((r, i) => r.rps / offRuns[i].rps)) : null;
      for (const target of targets) {
        const runs = samples.get(target.name);
        rows.push({
          paired: target.name === "qiao-limits" ? paired : null,
          target: target.name,
          mode,
          c,
          rps: median(runs.map((r) => r.rps)),
          p50: median(runs.map((r) => r.p50)),
          p99: median(runs.map((r) => r.p99)),
          p999: median(runs.map((r) => r.p999)),
          loop: runs.at(-1).loop,
          errors: runs.reduce((n, r) => n + r.errors, 0),
          rss0: runs[0].rss0,
          rss1: runs.at(-1).rss1,
        });
      }
    }
  }

  // Billing: wait (bounded) until the ledger has written everything, i.e. the counts stop moving.
  for (const q of qiaos) {
    q.after = await settleLedger(q.api, q.before, q.requests);
    q.rssEnd = rssOf(q.server.serverPid);
  }
  const isQiao = (name) => qiaos.some((q) => q.name === name);

  const floorOf = (r, name) => rows.find((f) => f.target === name && f.mode === r.mode && f.c === r.c);
  const headers = [
    "target",
    "mode",
    "c",
    "req/s",
    "p50 ms",
    "p99 ms",
    "p99.9 ms",
    "errors",
    "Qiao ÷ floor",
    "p50 added vs floor (ms)",
    "p99 ÷ floor",
    "relay workers' loop delay p99 (ms)",
    "Qiao ÷ dispatch floor",
    "Qiao RSS start→end (MB, all processes)",
    ...(compareLimits ? ["limits on ÷ off (req/s)", "limits on − off, p99 (ms)"] : []),
  ];
  const body = rows.map((r) => {
    const f = isQiao(r.target) ? floorOf(r, "floor") : null;
    const d = isQiao(r.target) ? floorOf(r, "floor-dispatch") : null;
    const off = r.target === "qiao-limits" ? floorOf(r, "qiao") : null;
    return [
      r.target,
      r.mode,
      r.c,
      fmt(r.rps, 0),
      fmt(r.p50, 2),
      fmt(r.p99, 2),
      fmt(r.p999, 2),
      r.errors,
      f ? fmt(r.rps / f.rps, 2) : "",
      f ? (r.p50 - f.p50 >= 0 ? "+" : "") + fmt(r.p50 - f.p50, 2) : "",
      f ? fmt(r.p99 / f.p99, 2) : "",
      r.loop ? loopText(r.loop) : "",
      d ? fmt(r.rps / d.rps, 2) : "",
      r.rss0 ? `${fmt(r.rss0.rss)}→${fmt(r.rss1.rss)}` : "",
      ...(compareLimits
        ? [off ? fmt(r.paired ?? r.rps / off.rps, 3) : "", off ? (r.p99 - off.p99 >= 0 ? "+" : "") + fmt(r.p99 - off.p99, 2) : ""]
        : []),
    ];
  });
  console.log(`\n${table(headers, body)}\n`);
  const streams = streamsSideBySide(rows, floorOf);
  if (streams) console.log(`${streams}\n`);
  if (compareLimits) {
    const on = rows.filter((r) => r.target === "qiao-limits" && floorOf(r, "qiao"));
    const ratios = on.map((r) => r.paired ?? r.rps / floorOf(r, "qiao").rps);
    console.log(
      `Limits on ÷ off, req/s (median of the rounds' own quotients): ${on.map((r, i) => `${r.mode} c=${r.c} ${fmt(ratios[i], 3)}`).join(", ")}; ` +
        `lowest ${fmt(Math.min(...ratios), 3)} (the issue asks for ≥ 0.95)\n`,
    );
  }
  for (const q of qiaos) {
    console.log(
      `${q.name} RSS (all ${q.rssEnd.processes} processes of server.ts pid ${q.server.serverPid}: primary, console, relay workers): ` +
        `idle after seeding ${fmt(q.rssIdle.rss)} MB, end ${fmt(q.rssEnd.rss)} MB, sum of per-process peaks (VmHWM) ${fmt(q.rssEnd.hwm)} MB`,
    );
  }

  for (const q of qiaos) {
    const billing = checkLedger(q.before, q.after, { completed: q.requests, slack: q.slack });
    console.log(`${q.name} billing: ${billing.lines.join("\n")}`);
    failures.push(...billing.failures.map((f) => `${q.name}: ${f}`));
    if (q.server.lateErrors() > 0)
      console.log(`note: ${q.name} wrote ${q.server.lateErrors()} line(s) to stderr during the run (see above)`);
  }

  if (failures.length) {
    console.error(`\n[bench] FAILED — ${failures.length} problem(s):\n  ${failures.join("\n  ")}`);
    return 1;
  }
  console.log("\n[bench] OK: no errors, billing and logging verified.");
  return 0;
});

/**
 * The passthrough stream beside the OpenAI one, per concurrency: Qiao ÷ floor of each, and their
 * quotient (1 when passing a Messages stream through costs what relaying a chat stream does, over
 * the same bare relay). null unless both streams ran.
 */
function streamsSideBySide(rows, floorOf) {
  const ratio = (mode, c, floorName) => {
    const q = rows.find((r) => r.target === "qiao" && r.mode === mode && r.c === c);
    const f = q && floorOf(q, floorName);
    return f ? q.rps / f.rps : null;
  };
  const body = [];
  for (const c of connections) {
    const chat = ratio("stream", c, "floor");
    const messages = ratio("messages-stream", c, "floor");
    if (chat === null || messages === null) continue;
    body.push([
      c,
      fmt(chat, 2),
      fmt(messages, 2),
      fmt(messages / chat, 2),
      fmt(ratio("stream", c, "floor-dispatch"), 2),
      fmt(ratio("messages-stream", c, "floor-dispatch"), 2),
    ]);
  }
  if (!body.length) return null;
  return table(
    [
      "c",
      "chat stream: Qiao ÷ floor",
      "messages stream (passthrough): Qiao ÷ floor",
      "passthrough ÷ chat",
      "chat stream: Qiao ÷ dispatch floor",
      "messages stream: Qiao ÷ dispatch floor",
    ],
    body,
  );
}

/** "relay-1 0.61, relay-2 0.58" (ms). */
function loopText(loop) {
  return Object.entries(loop)
    .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
    .map(([name, ms]) => `${name} ${fmt(ms, 2)}`)
    .join(", ");
}
