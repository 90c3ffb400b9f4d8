// CPU cost of the request limits (issue 26) on a relay worker of `npm start`, without a server:
// the worker's side (lib/limits/engine.ts admitCall and the release at settlement, admitting on the
// shares lib/limits/grants.ts holds) and the primary's (lib/server/limits-ipc.ts answering grants
// and reports from lib/limits/store.ts's counters), joined by messages copied through JSON as the
// IPC channel copies them. The limits are bench/lib.mjs's BENCH_LIMITS on the key and on the user
// (six counters: rpm, tpm and concurrency twice), far above what is sent, so none trips.
// Calls go in waves of --concurrency (admit them all, yield to the event loop, release them all),
// paced to --rate calls a second, as a loaded worker sees them. Prints CPU nanoseconds per call
// (user + system of this process, median of the rounds: the harness's waves and timers included),
// the wall time spent inside admitCall and release alone, and how many calls went to the primary.
//   node bench/limits.mjs [--calls 200000] [--rounds 5] [--concurrency 25] [--rate 6000]
import path from "node:path";
import { setImmediate as yieldNow } from "node:timers/promises";
import { BENCH_LIMITS, importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const calls = Number(args.calls ?? 200_000);
const rounds = Number(args.rounds ?? 5);
const concurrency = Number(args.concurrency ?? 25);
const rate = Number(args.rate ?? 6000);
const root = path.resolve(import.meta.dirname, "..");

process.env.DATA_DIR ??= path.join(root, "data");
const { admitCall, countLimitsIn, resetLocalLimits, limitsServer, limitsViaParent } = await importProduct("limits", [
  'export { admitCall, countLimitsIn, resetLocalLimits } from "./lib/limits/engine.ts";',
  'export { limitsServer, limitsViaParent } from "./lib/server/limits-ipc.ts";',
]);

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** The primary and one worker in this process; `primaryNs` is the CPU spent on the primary's side. */
function wire() {
  const server = limitsServer();
  const meter = { primaryNs: 0, asks: 0, admits: 0 };
  let child;
  const peer = {
    send(m) {
      const copy = JSON.parse(JSON.stringify(m));
      setImmediate(() => child.onMessage(copy));
    },
  };
  child = limitsViaParent((ask, sent) => {
    const copy = JSON.parse(JSON.stringify(ask));
    meter.asks++;
    if (copy.admit) meter.admits++;
    setImmediate(() => {
      const t = cpuNs();
      server.handle(copy, peer);
      meter.primaryNs += cpuNs() - t;
    });
    sent?.();
  });
  return { store: child.store, meter };
}

const { rpm, tpm, concurrency: slots } = BENCH_LIMITS;
const options = {
  UserRateLimits: { default: { rpm, tpm, concurrency: slots } },
  GroupRateLimits: {},
  ModelRateLimits: {},
};
const noLimits = { UserRateLimits: {}, GroupRateLimits: {}, ModelRateLimits: {} };
const key = { id: 1, rpmLimit: rpm, tpmLimit: tpm, concurrencyLimit: slots, budgetQuota: 0, budgetPeriod: "" };
const plainKey = { id: 2, rpmLimit: 0, tpmLimit: 0, concurrencyLimit: 0, budgetQuota: 0, budgetPeriod: "" };

/** `calls` calls in waves; the CPU ns per call of the whole loop, and the wiring's meter. */
async function run(limited) {
  resetLocalLimits();
  const { store, meter } = wire();
  countLimitsIn(store);
  const caller = limited ? { key, userId: 1, group: "default" } : { key: plainKey, userId: 2, group: "default" };
  const opts = limited ? options : noLimits;
  const wave = new Array(concurrency);
  const start = Date.now();
  const t0 = cpuNs();
  let headers = 0;
  /** Wall time inside admitCall and release (an admission the primary answers counts until its promise). */
  let inCalls = 0n;
  for (let done = 0; done < calls; done += concurrency) {
    for (let i = 0; i < concurrency; i++) {
      const h0 = process.hrtime.bigint();
      let admitted = admitCall(opts, caller, "gpt-4o-mini", 120, 300);
      inCalls += process.hrtime.bigint() - h0;
      if (admitted instanceof Promise) admitted = await admitted;
      if (admitted?.headers) headers++;
      wave[i] = admitted;
    }
    await yieldNow();
    const h1 = process.hrtime.bigint();
    for (let i = 0; i < concurrency; i++) wave[i]?.release(118, 290);
    inCalls += process.hrtime.bigint() - h1;
    // Paced: a share's size follows the worker's rate over real time.
    const ahead = start + ((done + concurrency) / rate) * 1000 - Date.now();
    if (ahead > 1) await new Promise((r) => setTimeout(r, ahead));
    else await yieldNow();
  }
  const ns = (cpuNs() - t0) / calls;
  await store.flush();
  countLimitsIn(null);
  if (limited && headers !== calls) throw new Error(`only ${headers} of ${calls} limited calls had x-ratelimit headers`);
  return { ns, inCallsNs: Number(inCalls) / calls, primaryNs: meter.primaryNs / calls, admits: meter.admits, asks: meter.asks };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const results = { off: [], on: [] };
await run(true); // warm-up
await run(false);
for (let r = 0; r < rounds; r++) {
  results.off.push(await run(false));
  results.on.push(await run(true));
}
const fmt = (n) => n.toFixed(0).padStart(8);
console.log(`[limits] ${calls} calls per round, waves of ${concurrency}, ${rate} calls/s, ${rounds} rounds (medians)`);
console.log("                       CPU ns/call (all)   in admit+release   of which primary   asks to primary   admitted there");
for (const [name, list] of [
  ["limits off", results.off],
  ["limits on (6 counters)", results.on],
]) {
  console.log(
    `${name.padEnd(24)}${fmt(median(list.map((x) => x.ns)))}            ${fmt(median(list.map((x) => x.inCallsNs)))}           ${fmt(median(list.map((x) => x.primaryNs)))}   ${fmt(median(list.map((x) => x.asks)))}         ${fmt(median(list.map((x) => x.admits)))}`,
  );
}
console.log(`cost of the limits: ${(median(results.on.map((x) => x.ns)) - median(results.off.map((x) => x.ns))).toFixed(0)} ns per call`);
