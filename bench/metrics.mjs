// The cost of what one relay call records in the Prometheus metrics (lib/metrics/relay.ts's
// recordAnswered: a request, its duration, tokens and quota; a stream's first token too) beside the
// same through prom-client's own labelled children, as it was recorded before (the baseline,
// written below). Prints CPU nanoseconds per call (user + system, median of the rounds) and the
// young-generation collections per million calls (what the calls allocate makes them).
// No server, no database.
//   node bench/metrics.mjs [--calls 1000000] [--rounds 5]
import { constants, PerformanceObserver } from "node:perf_hooks";
import { Counter, Histogram, Registry } from "prom-client";
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const calls = Number(args.calls ?? 1_000_000);
const rounds = Number(args.rounds ?? 5);

const m = await importProduct("metrics", ['export { recordAnswered } from "./lib/metrics/relay.ts";']);

/** recordAnswered before: prom-client's `labels()` children, kept per model and channel as relay.ts keeps its series. */
function baseline() {
  const registry = new Registry();
  const requests = new Counter({
    name: "b_requests_total",
    help: "-",
    labelNames: ["model", "channel", "status_class"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "b_duration_seconds",
    help: "-",
    labelNames: ["model", "channel"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const firstToken = new Histogram({
    name: "b_first_token_seconds",
    help: "-",
    labelNames: ["model", "channel"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60],
    registers: [registry],
  });
  const tokens = new Counter({ name: "b_tokens_total", help: "-", labelNames: ["model", "kind"], registers: [registry] });
  const quota = new Counter({ name: "b_quota_total", help: "-", labelNames: ["model"], registers: [registry] });
  const s = {
    ok: requests.labels("gpt-4o-mini", "1", "2xx"),
    duration: duration.labels("gpt-4o-mini", "1"),
    firstToken: firstToken.labels("gpt-4o-mini", "1"),
    prompt: tokens.labels("gpt-4o-mini", "prompt"),
    completion: tokens.labels("gpt-4o-mini", "completion"),
    quota: quota.labels("gpt-4o-mini"),
  };
  return (startedAt, firstTokenMs, usage, q) => {
    s.ok.inc();
    s.duration.observe((Date.now() - startedAt) / 1000);
    if (firstTokenMs >= 0) s.firstToken.observe(firstTokenMs / 1000);
    s.prompt.inc(usage.prompt_tokens);
    s.completion.inc(usage.completion_tokens);
    if (q > 0) s.quota.inc(q);
  };
}

const usage = { prompt_tokens: 12, completion_tokens: 9, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
// Young-generation collections, counted as they end: fewer bytes allocated per call, fewer of them.
let scavenges = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
});
observer.observe({ entryTypes: ["gc"] });

/** Median CPU ns per call and young collections per million calls over the rounds; half the calls streamed. */
async function measure(record) {
  const ns = [];
  const young = [];
  // Warm up (the JIT), and let the collections of what came before happen outside the rounds.
  for (let i = 0; i < 100_000; i++) record(Date.now(), i & 1 ? 180 : -1, usage, 31);
  await new Promise((resolve) => setImmediate(resolve));
  for (let r = 0; r < rounds; r++) {
    const startedAt = Date.now();
    const before = scavenges;
    const start = cpuNs();
    for (let i = 0; i < calls; i++) record(startedAt, i & 1 ? 180 : -1, usage, 31);
    ns.push((cpuNs() - start) / calls);
    // The observer hears of the round's last collections on the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    young.push(((scavenges - before) * 1e6) / calls);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { ns: median(ns), young: median(young) };
}

const before = await measure(baseline());
const now = await measure((startedAt, firstTokenMs, u, q) => m.recordAnswered("gpt-4o-mini", 1, startedAt, firstTokenMs, u, q));
observer.disconnect();
console.log(`recordAnswered, ${calls} calls x ${rounds} rounds (median), half of them streamed:`);
const rows = [
  ["recorded through", "CPU ns per call", "young GCs per million calls"],
  ["prom-client's labelled children (before)", before.ns.toFixed(0), before.young.toFixed(1)],
  ["lib/metrics/tally.ts (now)", now.ns.toFixed(0), now.young.toFixed(1)],
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
const line = (row) => `| ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(" | ")} |`;
console.log(line(rows[0]));
console.log(`| ${widths.map((w, c) => (c === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`);
for (const row of rows.slice(1)) console.log(line(row));
