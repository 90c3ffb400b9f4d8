// The cost of one channel choice (pickChannel) with 100 channels of 10 keys each in one priority
// tier, for each routing strategy: with the breaker off, on with nothing open (failures counted
// on some channels), and on with 10 channels open. The baseline is pickChannel as it was before
// issue 26 (copied below). Prints CPU nanoseconds per choice (user + system, median of the rounds).
// No server, no database.
//   node bench/routing.mjs [--calls 1000000] [--rounds 5]
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const calls = Number(args.calls ?? 1_000_000);
const rounds = Number(args.rounds ?? 5);

const m = await importProduct("routing", [
  'export { pickChannel } from "./lib/relay/memory/key-user-channel-cache.ts";',
  'export { breakerFailure, breakerTarget, breakerAllows, resetBreakers } from "./lib/channels/breaker.ts";',
  'export { inflightStarted, recordLatency } from "./lib/relay/routing/strategy.ts";',
]);

const CHANNELS = 100;
const KEYS = 10;
const channels = Array.from({ length: CHANNELS }, (_, i) => ({
  row: { id: i + 1, weight: i % 7, priority: 0 },
  config: { keys: Array.from({ length: KEYS }, (_, k) => `sk-${i}-${k}`) },
}));
const tier = { priority: 0, channels, weights: channels.map((c) => c.row.weight + 10), total: 0 };
tier.total = tier.weights.reduce((a, b) => a + b, 0);
const table = {
  byGroupModel: new Map([["default", new Map([["gpt-4o", [tier]]])]]),
  tasksByGroupModel: new Map(),
  byId: new Map(),
  modelsByGroup: new Map(),
};
for (const c of channels) {
  m.recordLatency(c.row.id, 200 + ((c.row.id * 37) % 300));
  if (c.row.id % 3 === 0) m.inflightStarted(c.row.id);
}

/** pickChannel before issue 26: weighted random in the highest tier with untried channels. */
function baselinePick(table, group, model, tried, preferred = null, random = Math.random) {
  const tiers = table.byGroupModel.get(group)?.get(model);
  if (!tiers) return null;
  for (const tier of tiers) {
    let total = 0;
    let sticky = null;
    for (let i = 0; i < tier.channels.length; i++) {
      const id = tier.channels[i].row.id;
      if (tried.has(id)) continue;
      total += tier.weights[i];
      if (id === preferred) sticky = tier.channels[i];
    }
    if (total === 0) continue;
    if (sticky) return sticky;
    let r = random() * total;
    for (let i = 0; i < tier.channels.length; i++) {
      if (tried.has(tier.channels[i].row.id)) continue;
      r -= tier.weights[i];
      if (r < 0) return tier.channels[i];
    }
    for (let i = tier.channels.length - 1; i >= 0; i--) if (!tried.has(tier.channels[i].row.id)) return tier.channels[i];
  }
  return null;
}

const SETTINGS = {
  ChannelBreakerEnabled: true,
  ChannelBreakerFailures: 5,
  ChannelBreakerWindowSeconds: 60,
  ChannelBreakerCooldownSeconds: 3600,
};
const tried = new Set();
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
let sink = 0;
function measure(pick) {
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const start = cpuNs();
    for (let i = 0; i < calls; i++) sink += pick().row.id;
    results.push((cpuNs() - start) / calls);
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(results.length / 2)];
}

const states = {
  off: () => m.resetBreakers(),
  "on, none open": () => {
    m.resetBreakers();
    // Failures counted on 10 channels, below the threshold: nothing is open.
    for (let id = 1; id <= 10; id++) m.breakerFailure(m.breakerTarget(id), SETTINGS, "x");
  },
  "on, 10 open": () => {
    m.resetBreakers();
    for (let id = 1; id <= 100; id += 10) for (let n = 0; n < 5; n++) m.breakerFailure(m.breakerTarget(id), SETTINGS, "x");
  },
};

const silence = console.warn;
console.warn = () => {};
const rows = [];
rows.push(["baseline (before issue 26)", "-", measure(() => baselinePick(table, "default", "gpt-4o", tried))]);
for (const strategy of ["weighted", "least_inflight", "lowest_latency"]) {
  for (const [state, set] of Object.entries(states)) {
    set();
    rows.push([
      strategy,
      state,
      measure(() => m.pickChannel(table, "default", "gpt-4o", tried, null, Math.random, table.byGroupModel, strategy, null)),
    ]);
  }
}
// A multi-key channel's key choice asks each candidate key's breaker: 10 lookups by target.
states["on, 10 open"]();
const keyTargets = channels[5].config.keys.map((_, k) => m.breakerTarget(6, `hash${k}`));
rows.push([
  "key breakers (10 keys)",
  "on, 10 open",
  measure(() => (keyTargets.every((t) => m.breakerAllows(t)) ? channels[0] : channels[1])),
]);
console.warn = silence;

console.log(`pickChannel, ${CHANNELS} channels × ${KEYS} keys in one tier, ${calls} calls × ${rounds} rounds (median), CPU ns per choice`);
console.log(`${"strategy".padEnd(28)}${"breaker".padEnd(16)}ns/op`);
for (const [s, b, ns] of rows) console.log(`${s.padEnd(28)}${b.padEnd(16)}${ns.toFixed(0)}`);
if (sink === 0.5) console.log(sink);
