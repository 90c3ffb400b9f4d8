// Token counting under attack: a chat request whose prompt is 2 MB of one repeated character
// (BPE is quadratic in a piece's length; it once blocked a worker for minutes), sent again and
// again, while a second client sends ordinary requests to the same relay worker.
//   node bench/tokens.mjs [--seconds 10] [--connections 4] [--mb 2] [--entry .next/qiao/server.mjs]
//                         [--upstream-usage] [--tool wrk|autocannon] [--start-timeout 1200]
// Qiao runs with one relay worker; the mock upstream reports no usage, so the relay counts every
// prompt and answer itself (the worst case); with --upstream-usage it does, and nothing is
// counted locally (what the huge requests cost without any counting). Prints the time to answer each huge request and the
// second client's req/s, p50 and p99 alone and while the huge requests run. Exit 1 on any error.
import { fmt, hasWrk, HOST, load, MODEL, parseArgs, runMain, seedQiao, startMockUpstream, startQiao, table, tempDir } from "./lib.mjs";

const args = parseArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 4);
const mb = Number(args.mb ?? 2);
const upstreamUsage = args["upstream-usage"] === true;
const entry = typeof args.entry === "string" ? args.entry : null;
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
/** A huge request still unanswered after this long counts as a failure (the target is 1 s). */
const HUGE_TIMEOUT_MS = 30_000;

/** Sends the huge request back to back until `stop()`; resolves with each one's time in ms. */
function hugeLoop(url, key) {
  const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "a".repeat(mb * 1024 * 1024) }] });
  const times = [];
  const failures = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body,
          signal: AbortSignal.timeout(HUGE_TIMEOUT_MS),
        });
        const text = await r.text();
        if (r.ok && text.includes('"choices"')) times.push(performance.now() - t0);
        else failures.push(`HTTP ${r.status} ${text.slice(0, 120)}`);
      } catch (e) {
        failures.push(String(e));
        return;
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return { times, failures };
    },
  };
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : Number.NaN;
};

runMain(async () => {
  console.log(`[tokens] ${mb} MB prompt of one character vs a second client at c=${connections}, ${seconds} s each, one relay worker`);
  const work = tempDir("qiao-tokens-work-");
  const upstream = await startMockUpstream({ usage: upstreamUsage });
  const qiao = await startQiao({ entry, startTimeoutMs, env: { RELAY_WORKERS: "1" } });
  const { key } = await seedQiao(qiao, upstream.url);
  console.log(`[tokens] Qiao ${qiao.url} (${HOST}), mock upstream ${upstreamUsage ? "with" : "without"} usage ${upstream.url}`);

  const first = hugeLoop(qiao.url, key);
  await new Promise((r) => setTimeout(r, 10));
  const once = await first.stop();
  if (once.failures.length) throw new Error(`the first huge request failed: ${once.failures[0]}`);
  console.log(`[tokens] first huge request: ${fmt(once.times[0], 0)} ms`);

  const alone = await load({ url: qiao.url, key, stream: false, connections, seconds, dir: work, tool });
  const huge = hugeLoop(qiao.url, key);
  const beside = await load({ url: qiao.url, key, stream: false, connections, seconds, dir: work, tool });
  const { times, failures } = await huge.stop();

  console.log(
    `\n${mb} MB requests during the second run: ${times.length} answered, ${failures.length} failed; time to answer p50 ${fmt(percentile(times, 50), 0)} ms, max ${fmt(Math.max(...times), 0)} ms\n`,
  );
  console.log(
    table(
      ["second client", "req/s", "p50 ms", "p99 ms", "errors"],
      [
        ["alone", fmt(alone.rps, 0), fmt(alone.p50, 2), fmt(alone.p99, 2), alone.errors],
        [`beside ${mb} MB requests`, fmt(beside.rps, 0), fmt(beside.p50, 2), fmt(beside.p99, 2), beside.errors],
      ],
    ),
  );
  const problems = [...failures, ...(alone.errors ? [alone.detail] : []), ...(beside.errors ? [beside.detail] : [])];
  if (problems.length) {
    console.error(`\n[tokens] FAILED: ${problems.slice(0, 3).join("; ")}`);
    return 1;
  }
  return 0;
});
