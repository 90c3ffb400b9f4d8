// Token counting under attack: a chat request whose prompt is 2 MB of one repeated character
// (BPE is quadratic in a piece's length; it once blocked a worker for minutes), sent again and
// again, while a second client sends ordinary requests to the same relay worker.
//   node bench/tokens.mjs [--seconds 10] [--connections 4] [--mb 2] [--gap 0] [--entry .next/qiao/server.mjs]
//                         [--upstream-usage] [--control] [--tool wrk|autocannon] [--start-timeout 1200]
// Qiao runs with one relay worker; the mock upstream reports no usage, so the relay counts every
// prompt and answer itself (the worst case); with --upstream-usage it does, and nothing is
// counted locally (what the huge requests cost without any counting). Prints the time to answer each huge request and the
// second client's req/s, p50 and p99 alone and while the huge requests run. The huge requests come
// from a process of their own, and the mock upstream does not parse them (bench/mock-upstream.mjs),
// so what is measured is Qiao's cost. --control runs the same two loads through the bare floor relay
// (bench/floor.mjs): how much of the second client's p99 the shared cores take whatever the relay.
// --gap <ms> waits that long after each huge request before the next (default 0, back to back):
// with a gap, the second client is measured across many single huge requests, each answered while
// it runs (the issue's "meanwhile"), rather than beside a flood that never stops.
// Exit 1 on any error.
import {
  fmt,
  hasWrk,
  HOST,
  load,
  MODEL,
  parseArgs,
  runMain,
  seedQiao,
  startChild,
  startFloor,
  startMockUpstream,
  startQiao,
  table,
  tempDir,
} from "./lib.mjs";

const args = parseArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 4);
const mb = Number(args.mb ?? 2);
const upstreamUsage = args["upstream-usage"] === true;
const entry = typeof args.entry === "string" ? args.entry : null;
const tool = String(args.tool ?? (hasWrk() ? "wrk" : "autocannon"));
const control = args.control === true;
const gapMs = Number(args.gap ?? 0);
const startTimeoutMs = Number(args["start-timeout"] ?? 1200) * 1000;
/** A huge request still unanswered after this long counts as a failure (the target is 1 s). */
const HUGE_TIMEOUT_MS = 30_000;

/**
 * The huge requests, back to back, from a process of their own (so that making and sending them
 * takes none of this process's time): `tokens.mjs --flood-url <url> --flood-key <key>` runs until
 * SIGTERM, then prints one line of JSON: { times, failures }.
 */
async function floodChild(url, key) {
  const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "a".repeat(mb * 1024 * 1024) }] });
  const times = [];
  const failures = [];
  let running = true;
  process.on("SIGTERM", () => (running = false));
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
      break;
    }
    if (args.once === true) break;
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  process.stdout.write(`${JSON.stringify({ times, failures })}\n`);
}

/** Starts the flood in its own process; `stop()` resolves with each huge request's time in ms. */
function hugeLoop(url, key, { once = false } = {}) {
  const child = startChild("flood", process.execPath, [
    import.meta.filename,
    "--flood-url",
    url,
    "--flood-key",
    key,
    "--mb",
    String(mb),
    "--gap",
    String(gapMs),
    ...(once ? ["--once"] : []),
  ]);
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  const exited = new Promise((r) => child.once("exit", r));
  const result = async () => {
    await exited;
    const line = out.trim().split("\n").at(-1);
    if (!line) throw new Error("the flood process printed nothing");
    return JSON.parse(line);
  };
  return {
    done: result,
    stop: async () => {
      child.kill("SIGTERM");
      return result();
    },
  };
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : Number.NaN;
};

/** The second client alone, then beside the flood, against `url`. */
async function measure(url, key, work) {
  const alone = await load({ url, key, stream: false, connections, seconds, dir: work, tool });
  const huge = hugeLoop(url, key);
  const beside = await load({ url, key, stream: false, connections, seconds, dir: work, tool });
  return { alone, beside, ...(await huge.stop()) };
}

if (typeof args["flood-url"] === "string") await floodChild(args["flood-url"], String(args["flood-key"]));
else
  runMain(async () => {
    console.log(
      `[tokens] ${mb} MB prompt of one character${gapMs > 0 ? `, one every ${gapMs} ms after the last answer,` : " back to back"} vs a second client at c=${connections}, ${seconds} s each, one relay worker`,
    );
    const work = tempDir("qiao-tokens-work-");
    const upstream = await startMockUpstream({ usage: upstreamUsage });
    const qiao = await startQiao({ entry, startTimeoutMs, env: { RELAY_WORKERS: "1" } });
    const { key } = await seedQiao(qiao, upstream.url);
    console.log(`[tokens] Qiao ${qiao.url} (${HOST}), mock upstream ${upstreamUsage ? "with" : "without"} usage ${upstream.url}`);

    const once = await hugeLoop(qiao.url, key, { once: true }).done();
    if (once.failures.length) throw new Error(`the first huge request failed: ${once.failures[0]}`);
    console.log(`[tokens] first huge request: ${fmt(once.times[0], 0)} ms`);

    const runs = [["Qiao", await measure(qiao.url, key, work)]];
    if (control) {
      // The same flood through the bare floor relay: what the shared cores alone cost the second client.
      const floor = await startFloor(upstream.url);
      runs.push(["floor (control)", await measure(floor.url, key, work)]);
    }

    const rows = [];
    const problems = [];
    for (const [name, r] of runs) {
      console.log(
        `\n${name}: ${mb} MB requests during the second run: ${r.times.length} answered, ${r.failures.length} failed; time to answer p50 ${fmt(percentile(r.times, 50), 0)} ms, max ${fmt(Math.max(...r.times), 0)} ms`,
      );
      rows.push([`${name} alone`, fmt(r.alone.rps, 0), fmt(r.alone.p50, 2), fmt(r.alone.p99, 2), "", r.alone.errors]);
      rows.push([
        `${name} beside ${mb} MB requests`,
        fmt(r.beside.rps, 0),
        fmt(r.beside.p50, 2),
        fmt(r.beside.p99, 2),
        fmt(r.beside.p99 / r.alone.p99, 2),
        r.beside.errors,
      ]);
      problems.push(...r.failures, ...(r.alone.errors ? [r.alone.detail] : []), ...(r.beside.errors ? [r.beside.detail] : []));
    }
    console.log(`\n${table(["second client", "req/s", "p50 ms", "p99 ms", "p99 ÷ alone", "errors"], rows)}`);
    if (problems.length) {
      console.error(`\n[tokens] FAILED: ${problems.slice(0, 3).join("; ")}`);
      return 1;
    }
    return 0;
  });
