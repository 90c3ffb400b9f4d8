// Shared machinery of the bench scripts: child processes (always killed on exit), the mock
// upstream, the floor, Qiao (`node scripts/start.mjs` on a fresh DATA_DIR, or on a throwaway
// PostgreSQL database and a Redis database), seeding Qiao through its real /api, the load generator
// (wrk, autocannon as fallback; one or several at once), the billing check and RSS sampling.
// Everything talks to 127.0.0.1 only, and every wait is bounded in time.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  createWriteStream,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const HOST = "127.0.0.1";
export const MODEL = "gpt-4o-mini";
/** The model of the Claude channel the passthrough scenario calls (priced in Qiao's defaults). */
export const CLAUDE_MODEL = "claude-3-5-haiku-20241022";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Arguments

/** `--name value`, `--name=value` and bare `--flag` (true). */
export function parseArgs(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Children and cleanup

const children = new Set(); // { name, child, group }
const tempDirs = new Set();
const afterKill = []; // async functions run once the children are gone (databases to drop…)
let cleaningUp = null;

/** Runs `fn` (async) at cleanup, after every child is dead, before the temp dirs go; in order of registration. */
export function onCleanup(fn) {
  afterKill.push(fn);
}

/** Spawns a child; `group` children get their own process group so the whole tree can be killed. */
export function startChild(name, cmd, args, opts = {}) {
  const { group = false, ...rest } = opts;
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: group, ...rest });
  const entry = { name, child, group };
  children.add(entry);
  child.on("exit", () => children.delete(entry));
  return child;
}

function signal(entry, sig) {
  try {
    if (entry.group) process.kill(-entry.child.pid, sig);
    else entry.child.kill(sig);
  } catch {
    /* already gone */
  }
}

const alive = (entry) => entry.child.exitCode === null && entry.child.signalCode === null;

/** SIGTERM everything we started, SIGKILL whatever is still there after `graceMs`; remove temp dirs. */
export function cleanup(graceMs = 12_000) {
  if (cleaningUp) return cleaningUp;
  cleaningUp = (async () => {
    const list = [...children];
    for (const e of list) signal(e, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (list.some(alive) && Date.now() < deadline) await sleep(100);
    for (const e of list) if (alive(e)) signal(e, "SIGKILL");
    // A group leader may be gone while its children are not: make sure the group is empty.
    for (const e of list) if (e.group) signal(e, "SIGKILL");
    for (const fn of afterKill) {
      try {
        await fn();
      } catch (e) {
        console.error(`[bench] cleanup: ${e?.message ?? e}`);
      }
    }
    for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  })();
  return cleaningUp;
}

/** Installs the exit handlers; `main` runs, then cleanup always runs, and failures exit non-zero. */
export function runMain(main) {
  const bail = (why, code) => {
    console.error(`\n[bench] ${why}: cleaning up…`);
    void cleanup().finally(() => process.exit(code));
  };
  process.on("SIGINT", () => bail("interrupted", 130));
  process.on("SIGTERM", () => bail("terminated", 143));
  process.on("unhandledRejection", (e) => bail(`unhandled rejection ${e?.stack ?? e}`, 1));
  process.on("uncaughtException", (e) => bail(`uncaught exception ${e?.stack ?? e}`, 1));
  // Last resort (sync): whatever is still alive dies with us.
  process.on("exit", () => {
    for (const e of children) signal(e, "SIGKILL");
  });
  main().then(
    (code) => !cleaningUp && cleanup().then(() => process.exit(code ?? 0)),
    (error) => {
      if (cleaningUp) return; // interrupted: the children were killed under us, bail() exits
      console.error(`\n[bench] FAILED: ${error?.stack ?? error}`);
      return cleanup().then(() => process.exit(1));
    },
  );
}

export function tempDir(prefix) {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(d);
  return d;
}

/**
 * `BENCH_PORTS=4100-4199` confines every listener the bench starts (Qiao, the mock upstream, the
 * floors) to that range, for a box where each user has ports of their own; otherwise the kernel
 * picks any free port.
 */
const PORT_RANGE = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? "");
let nextPort = PORT_RANGE ? Number(PORT_RANGE[1]) : 0;

function tryListen(port) {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(port, HOST, () => {
      const { port: bound } = s.address();
      s.close(() => resolve(bound));
    });
  });
}

export async function freePort() {
  if (!PORT_RANGE) return tryListen(0);
  while (nextPort <= Number(PORT_RANGE[2])) {
    try {
      return await tryListen(nextPort++);
    } catch {
      /* taken: the next one */
    }
  }
  throw new Error(`no free port left in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

/** Waits for a `READY <port>` line on the child's stdout. */
function waitReady(name, child, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error(`${name} did not print READY within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.on("data", (c) => {
      buf += c;
      const m = /READY (\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr.on("data", (c) => process.stderr.write(`[${name}] ${c}`));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before READY`));
    });
  });
}

export async function startMockUpstream({ usage = true } = {}) {
  const args = [path.join(ROOT, "bench/mock-upstream.mjs"), String(PORT_RANGE ? await freePort() : 0), ...(usage ? [] : ["--no-usage"])];
  const child = startChild("mock-upstream", process.execPath, args);
  const port = await waitReady("mock-upstream", child);
  return { child, port, url: `http://${HOST}:${port}` };
}

/** `variant`: "floor" (undici.request + pipe) or "floor-dispatch" (undici's dispatch API); `env`: added to ours. */
export async function startFloor(upstreamUrl, variant = "floor", { env } = {}) {
  const child = startChild(
    variant,
    process.execPath,
    [path.join(ROOT, `bench/${variant}.mjs`), String(PORT_RANGE ? await freePort() : 0), upstreamUrl],
    env ? { env: { ...process.env, ...env } } : {},
  );
  const port = await waitReady(variant, child);
  return { child, port, url: `http://${HOST}:${port}` };
}

// ---------------------------------------------------------------------------------------------
// Qiao

/** Descendant pids of `pid` (from /proc/<pid>/stat ppid links). */
export function descendants(pid) {
  const parent = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      /* exited meanwhile */
    }
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift();
    for (const [c, pp] of parent) if (pp === p) out.push(c), queue.push(c);
  }
  return out;
}

export const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
};

/** The pid of the primary server process (server.ts as built, .next/qiao/server.mjs) under `scripts/start.mjs`. */
export function findServerPid(startPid) {
  return descendants(startPid).find((p) => /server\.(ts|mjs)\b/.test(cmdline(p))) ?? null;
}

/** One process's memory in MB: current VmRSS and its own peak VmHWM; null when unreadable. */
export function statusOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(s)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/**
 * Memory of a process and all its descendants, in MB: `npm start` is a primary, a console (Next)
 * and the relay workers, and all of them count. `rss` sums current VmRSS; `hwm` sums each
 * process's own peak (VmHWM), an upper bound of the true combined peak. null when unreadable.
 */
export function rssOf(pid) {
  let rss = 0;
  let hwm = 0;
  let processes = 0;
  for (const p of [pid, ...descendants(pid)]) {
    const s = statusOf(p);
    if (!s) continue;
    rss += s.rss;
    hwm += s.hwm;
    processes++;
  }
  return processes ? { rss, hwm, processes } : { rss: null, hwm: null, processes: 0 };
}

/** user + system CPU seconds of one process so far (its own threads, not its children); NaN when unreadable. */
export function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ = 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/**
 * `node scripts/start.mjs` (builds first when sources changed) with a fresh temp DATA_DIR (SQLite),
 * its own PORT and a SESSION_SECRET; waits until GET /api/status answers. `entry`: run that built
 * server bundle directly instead (no build check), e.g. to compare two builds side by side, with
 * `nodeArgs` before it (the primary passes them on to the relay workers). `env` goes over all
 * that: SQL_DSN, REDIS_CONN_STRING and NODE_TYPE put it on a shared database (`startInstances`).
 * `label` prefixes its echoed lines.
 */
export async function startQiao({
  startTimeoutMs = 20 * 60_000,
  echo = true,
  entry = null,
  nodeArgs = [],
  env: extraEnv = {},
  label = "qiao",
} = {}) {
  const dataDir = tempDir("qiao-bench-");
  const port = await freePort();
  const logFile = path.join(dataDir, "qiao.log");
  // Qiao's stdout (a JSON line per relay call at LOG_LEVEL=info) goes straight into the file: read
  // through a pipe, its lines would cost this process CPU on the box being measured.
  const outFd = openSync(logFile, "a");
  const log = createWriteStream(logFile, { flags: "a" });
  const env = { ...process.env };
  for (const k of ["SQL_DSN", "SQLITE_PATH", "REDIS_CONN_STRING", "NODE_TYPE", "CRYPTO_SECRET"]) delete env[k];
  Object.assign(env, {
    PORT: String(port),
    HOST,
    DATA_DIR: dataDir,
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    NEXT_TELEMETRY_DISABLED: "1",
    ...(entry ? { NODE_ENV: "production" } : {}),
    ...extraEnv,
  });
  const args = [...(entry ? nodeArgs : []), path.resolve(ROOT, entry ?? "scripts/start.mjs")];
  const child = startChild("qiao", process.execPath, args, { group: true, env, stdio: ["ignore", outFd, "pipe"] });
  closeSync(outFd);
  let ready = false;
  let lateErrors = 0;
  const tail = [];
  const onLine = (stream) => (chunk) => {
    log.write(chunk);
    for (const line of String(chunk).split("\n")) {
      if (!line) continue;
      tail.push(line);
      if (tail.length > 60) tail.shift();
      if (!ready && echo) console.log(`  [${label}] ${line}`);
      else if (ready && stream === "stderr" && ++lateErrors <= 20) console.error(`  [${label}:stderr] ${line}`);
    }
  };
  child.stderr.on("data", onLine("stderr"));
  // Until it answers, the file's new lines are shown (the build's progress) and kept for errors.
  const readFd = openSync(logFile, "r");
  let readAt = 0;
  let partial = "";
  const readNew = () => {
    const size = fstatSync(readFd).size;
    if (size <= readAt) return;
    const buf = Buffer.alloc(size - readAt);
    readAt += readSync(readFd, buf, 0, buf.length, readAt);
    const lines = (partial + buf.toString("utf8")).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      if (!line) continue;
      tail.push(line);
      if (tail.length > 60) tail.shift();
      if (echo) console.log(`  [${label}] ${line}`);
    }
  };
  const url = `http://${HOST}:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  while (true) {
    readNew();
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Qiao exited (${child.exitCode ?? child.signalCode}) before answering; last lines:\n${tail.join("\n")}`);
    }
    if (Date.now() > deadline) throw new Error(`Qiao did not answer within ${startTimeoutMs / 1000} s; log: ${logFile}`);
    try {
      const r = await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(5_000) });
      await r.arrayBuffer();
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    await sleep(500);
  }
  readNew();
  closeSync(readFd);
  ready = true;
  let serverPid = entry ? child.pid : null;
  for (let i = 0; i < 50 && !serverPid; i++) (serverPid = findServerPid(child.pid)) || (await sleep(100));
  if (!serverPid) throw new Error(`could not find the server.ts process under pid ${child.pid}`);
  return { child, port, url, dataDir, logFile, serverPid, tail, lateErrors: () => lateErrors };
}

/** Stops a Qiao of `startQiao` (its whole process group): SIGTERM, SIGKILL after `graceMs`; resolves once it is gone. */
export async function stopQiao(qiao, graceMs = 15_000) {
  const gone = () => qiao.child.exitCode !== null || qiao.child.signalCode !== null;
  const kill = (sig) => {
    try {
      process.kill(-qiao.child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  kill("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (!gone() && Date.now() < deadline) await sleep(100);
  kill("SIGKILL"); // the leader may be gone while a worker is not
  while (!gone()) await sleep(50);
}

// ---------------------------------------------------------------------------------------------
// A shared database: PostgreSQL and Redis on loopback

export const PG_ADMIN_DSN = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * A new empty PostgreSQL database (the first Qiao started on it migrates it), dropped at cleanup
 * unless `keep`. Returns { name, dsn }.
 */
export async function createPostgresDatabase({ keep = false } = {}) {
  const { default: pg } = await import("pg");
  const name = `qiao_bench_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_DSN });
  await admin.connect().catch((e) => {
    throw new Error(`PostgreSQL on 127.0.0.1:5432 is not reachable (${e.message})`);
  });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const dsn = `postgres://postgres@127.0.0.1:5432/${name}`;
  onCleanup(async () => {
    if (keep) return console.log(`[bench] --keep: PostgreSQL database ${name} kept (${dsn})`);
    const c = new pg.Client({ connectionString: PG_ADMIN_DSN });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  return { name, dsn };
}

/**
 * Redis database `db` on 127.0.0.1:6379 for this run, which must find it empty (other users of this
 * Redis keep to their own databases; nothing here flushes anything). At cleanup the keys Qiao wrote
 * there (`qiao:*`) are deleted, one SCAN at a time, unless `keep`. Returns the REDIS_CONN_STRING.
 */
export async function claimRedisDatabase(db, { keep = false } = {}) {
  const { createClient } = await import("redis");
  const url = `redis://127.0.0.1:6379/${db}`;
  const client = await createClient({ url }).connect();
  try {
    const size = await client.dbSize();
    if (size > 0) throw new Error(`Redis database ${db} holds ${size} key(s) already: pick an empty one with --redis-db <n>`);
  } finally {
    await client.quit();
  }
  onCleanup(async () => {
    if (keep) return console.log(`[bench] --keep: Redis keys of ${url} kept`);
    const c = await createClient({ url }).connect();
    try {
      let cursor = "0";
      do {
        const r = await c.scan(cursor, { MATCH: "qiao:*", COUNT: 500 });
        cursor = String(r.cursor);
        if (r.keys.length) await c.del(r.keys);
      } while (cursor !== "0");
    } finally {
      await c.quit();
    }
  });
  return url;
}

/**
 * `count` instances of `npm start` on one database and Redis, as README "Several instances" says:
 * the same SQL_DSN, REDIS_CONN_STRING, SESSION_SECRET and CRYPTO_SECRET; the first is the master
 * (it migrates the empty database and creates root), the others slaves started once it answers.
 * Each primary gives its processes their own QIAO_INSTANCE_ID (their origin on the Redis bus).
 */
export async function startInstances({ count = 2, dsn, redisUrl, env = {}, ...options }) {
  const shared = {
    SQL_DSN: dsn,
    REDIS_CONN_STRING: redisUrl,
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    CRYPTO_SECRET: randomBytes(32).toString("base64url"),
    ...env,
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    const label = `qiao-${String.fromCharCode(97 + i)}`;
    out.push(await startQiao({ ...options, label, env: { ...shared, NODE_TYPE: i === 0 ? "master" : "slave" } }));
  }
  return out;
}

/** A tiny client for Qiao's /api: login as root once, then cookie + New-Api-User on every call. */
export class QiaoApi {
  constructor(url) {
    this.url = url;
    this.cookie = "";
    this.userId = 0;
  }

  async call(method, p, body) {
    const headers = { "content-type": "application/json" };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.userId) headers["new-api-user"] = String(this.userId);
    const r = await fetch(this.url + p, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await r.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${p}: HTTP ${r.status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (!r.ok || json.success !== true) throw new Error(`${method} ${p}: HTTP ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { data: json.data, res: r };
  }

  async login(username = "root", password = "123456") {
    const { data, res } = await this.call("POST", "/api/user/login", { username, password });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("qiao_session="));
    if (!cookie) throw new Error("login answered without a qiao_session cookie");
    this.cookie = cookie.split(";")[0];
    this.userId = data.id;
    return data;
  }

  self() {
    return this.call("GET", "/api/user/self").then((r) => r.data);
  }

  /** Consume rows in the log (type 2), via the admin list's `total`. */
  async consumeLogTotal() {
    const { data } = await this.call("GET", "/api/log/?p=0&page_size=1&type=2");
    return data.total;
  }

  /** The quota summed over the consume rows of the log (GET /api/log/stat). */
  async consumeLogQuota() {
    const { data } = await this.call("GET", "/api/log/stat?type=2");
    return data.quota;
  }

  async allLogTotal() {
    const { data } = await this.call("GET", "/api/log/?p=0&page_size=1");
    return data.total;
  }
}

/**
 * The limits `--limits` puts on the bench (issue 26): on the token and, through UserRateLimits, on
 * root's group; each far above what one box can send (rpm 100 M is 1.6 M requests a second), so
 * none trips and the run measures what counting them costs.
 */
export const BENCH_LIMITS = { rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 100_000 };

/**
 * Seeds Qiao through the real API: root login, a large quota for root, an OpenAI (type 1) and a
 * Claude (type 14) channel on the mock upstream, an unlimited token. Then waits (bounded) until a
 * relay call succeeds, and checks one call of every scenario. `limits`: BENCH_LIMITS on the token
 * and on root's group, set before the token's first call (the relay caches a key's limits with it).
 */
export async function seedQiao(qiao, upstreamUrl, { quota = 1_000_000_000_000, limits = false } = {}) {
  const api = new QiaoApi(qiao.url);
  const me = await api.login();
  await api.call("PUT", "/api/user/", { id: me.id, quota });
  await api.call("POST", "/api/channel/", {
    name: "bench-mock",
    type: 1,
    key: "sk-bench-upstream",
    base_url: upstreamUrl,
    models: MODEL,
    group: "default",
  });
  await api.call("POST", "/api/channel/", {
    name: "bench-mock-claude",
    type: 14,
    key: "sk-ant-bench-upstream",
    base_url: upstreamUrl,
    models: CLAUDE_MODEL,
    group: "default",
  });
  const { data: token } = await api.call("POST", "/api/token/", {
    name: "bench",
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  if (!/^sk-[A-Za-z0-9]{48}$/.test(key)) throw new Error(`unexpected token key shape: ${key.slice(0, 8)}…`);
  if (limits) await limitBench(qiao, api, token.id, me.group);
  await waitForRelay(qiao.url, key);
  if (limits) {
    // A limited call says so in its answer: the limits are on for the run.
    const r = await relayOnce(qiao.url, key, "json");
    const said = r.headers?.get("x-ratelimit-limit-requests");
    if (said !== String(BENCH_LIMITS.rpm)) throw new Error(`--limits: the relay's answer has x-ratelimit-limit-requests ${said}`);
  }
  return { api, key, userId: me.id };
}

/**
 * Waits (bounded) until a relay call with `key` succeeds on `url` (the routing table may lag a
 * write by a moment, or another instance's write by a Redis message), then checks one call of
 * every scenario.
 */
export async function waitForRelay(url, key, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (true) {
    const r = await relayOnce(url, key, "json");
    if (r.ok) break;
    last = r.detail;
    if (Date.now() >= deadline) throw new Error(`relay on ${url} never succeeded after seeding: ${last}`);
    await sleep(500);
  }
  for (const scenario of ["stream", "messages-stream"]) {
    const s = await relayOnce(url, key, scenario);
    if (!s.ok) throw new Error(`${scenario} relay call on ${url} failed after seeding: ${s.detail}`);
  }
}

/**
 * BENCH_LIMITS on the token (its columns written in Qiao's SQLite file: this branch's token API does
 * not take them) and in UserRateLimits for `group`, through the option API.
 */
async function limitBench(qiao, api, tokenId, group) {
  const { rpm, tpm, concurrency } = BENCH_LIMITS;
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path.join(qiao.dataDir, "qiao.db"));
  try {
    db.pragma("busy_timeout = 10000");
    const changed = db
      .prepare("UPDATE tokens SET rpm_limit = ?, tpm_limit = ?, concurrency_limit = ? WHERE id = ?")
      .run(rpm, tpm, concurrency, tokenId).changes;
    if (changed !== 1) throw new Error(`token ${tokenId} not found in ${qiao.dataDir}/qiao.db`);
  } finally {
    db.close();
  }
  await api.call("PUT", "/api/option/", { key: "UserRateLimits", value: JSON.stringify({ [group || "default"]: BENCH_LIMITS }) });
}

const chatBody = (stream) =>
  JSON.stringify({
    model: MODEL,
    messages: [{ role: "user", content: "Say hello in five words." }],
    max_tokens: 16,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

/**
 * The calls the bench loads, by the name its tables give them ("mode"): OpenAI chat completions
 * whole and streamed, and Anthropic's Messages API streamed, as the Anthropic SDK sends it (key in
 * `x-api-key`, `anthropic-version`), which Qiao passes through to its Claude channel. Every target
 * gets the same request; only Qiao's carries the key. `complete` is what a whole answer contains.
 */
export const SCENARIOS = {
  json: { path: "/v1/chat/completions", body: chatBody(false), headers: {}, keyHeader: "authorization", complete: '"choices"' },
  stream: { path: "/v1/chat/completions", body: chatBody(true), headers: {}, keyHeader: "authorization", complete: "data: [DONE]" },
  "messages-stream": {
    path: "/v1/messages",
    body: JSON.stringify({
      model: CLAUDE_MODEL,
      max_tokens: 16,
      messages: [{ role: "user", content: "Say hello in five words." }],
      stream: true,
    }),
    headers: { "anthropic-version": "2023-06-01" },
    keyHeader: "x-api-key",
    complete: "event: message_stop",
  },
};

/** The scenario of a load call: named, or the chat one `stream` picks (what the older scripts pass). */
const scenarioOf = (name, stream) => {
  const s = SCENARIOS[name ?? (stream ? "stream" : "json")];
  if (!s) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
  return s;
};

/** The request headers of a scenario, with the key where its callers put it. */
function headersOf(scenario, key) {
  const headers = { "content-type": "application/json", ...scenario.headers };
  if (key) headers[scenario.keyHeader] = scenario.keyHeader === "authorization" ? `Bearer ${key}` : key;
  return headers;
}

/** One relay call of a scenario with checks on the answer's shape. */
export async function relayOnce(url, key, scenarioName) {
  const scenario = scenarioOf(scenarioName);
  try {
    const r = await fetch(url + scenario.path, {
      method: "POST",
      headers: headersOf(scenario, key),
      body: scenario.body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await r.text();
    const ok = r.ok && text.includes(scenario.complete) && text.includes("mock");
    return { ok, detail: `HTTP ${r.status} ${text.slice(0, 200)}`, headers: r.headers };
  } catch (e) {
    return { ok: false, detail: String(e) };
  }
}

// ---------------------------------------------------------------------------------------------
// The product's modules without a server

/**
 * Imports the product's TypeScript modules: `exports` are lines such as
 * `export { x } from "./lib/relay/….ts";` (paths from the repository's root), bundled in memory
 * as `npm run build` bundles the server, packages left to node_modules. The bundle is written to
 * node_modules/.cache/qiao-bench-<name>.mjs, beside the packages it imports.
 */
export async function importProduct(name, exports) {
  const { build } = await import("esbuild");
  const bundled = await build({
    stdin: { contents: exports.join("\n"), resolveDir: ROOT, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "error",
  });
  const file = path.join(ROOT, "node_modules", ".cache", `qiao-bench-${name}.mjs`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bundled.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

// ---------------------------------------------------------------------------------------------
// Load generator

export function hasWrk() {
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

/**
 * wrk script: POST body, and a per-thread count of bad answers (non-2xx, or a body that is not a
 * complete answer of the scenario), summed in done(); prints one JSON line.
 */
function wrkScript(dir, key, name, scenario) {
  const file = path.join(dir, `wrk-${name}-${key ? "auth" : "anon"}.lua`);
  const headers = Object.entries(headersOf(scenario, key))
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  const lua = `
wrk.method = "POST"
wrk.body = ${JSON.stringify(scenario.body)}
${headers}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0; firstbad = "" end
function response(status, headers, body)
  local good = status >= 200 and status < 300 and body ~= nil and
    string.find(body, ${JSON.stringify(scenario.complete)}, 1, true) ~= nil
  if not good then
    bad = bad + 1
    if firstbad == "" then firstbad = tostring(status) .. " " .. string.sub(body or "", 1, 200) end
  end
end
local function esc(s) return (string.gsub(s, '[%c"\\\\]', " ")) end
function done(summary, latency, requests)
  local b, fb = 0, ""
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    if fb == "" then fb = t:get("firstbad") end
  end
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"duration_us":%d,"bad":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"mean_us":%f,"first_bad":"%s"}\\n',
    summary.requests, summary.duration, b, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.mean, esc(fb)))
end
`;
  writeFileSync(file, lua);
  return file;
}

/**
 * Runs the load generator for `seconds` at `connections` with the calls of `scenario` (a name of
 * SCENARIOS; without it, chat completions streamed or not as `stream` says).
 * Returns { rps, p50, p99, p999 (ms), requests, errors, detail }.
 */
export async function load({ url, key, stream, scenario: name, connections, seconds, threads = 1, dir, tool = "wrk" }) {
  const scenario = scenarioOf(name, stream);
  if (tool === "autocannon") return loadAutocannon({ url, key, scenario, connections, seconds });
  const script = wrkScript(dir, key, name ?? (stream ? "stream" : "json"), scenario);
  const args = [
    "-t",
    String(Math.min(threads, connections)),
    "-c",
    String(connections),
    "-d",
    `${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    url + scenario.path,
  ];
  const child = startChild("wrk", "wrk", args);
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
  const code = await new Promise((r) => child.on("exit", (c, s) => r(c ?? s)));
  clearTimeout(killer);
  const line = out.split("\n").find((l) => l.startsWith("BENCHJSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}):\n${out}\n${err}`);
  const j = JSON.parse(line.slice("BENCHJSON ".length));
  const socketErrors = j.connect + j.read + j.write + j.timeout;
  return {
    requests: j.requests,
    rps: j.requests / (j.duration_us / 1e6),
    p50: j.p50_us / 1000,
    p99: j.p99_us / 1000,
    p999: j.p999_us / 1000,
    // `bad` already covers non-2xx (wrk's `status` counts only >= 400, so it is a subset).
    errors: j.bad + socketErrors,
    detail:
      j.bad + socketErrors
        ? `bad=${j.bad} connect=${j.connect} read=${j.read} write=${j.write} timeout=${j.timeout} first: ${j.first_bad}`
        : "",
  };
}

/**
 * Several load generators at once, one per target ({ url, key }), `connections` split between them
 * as evenly as it goes (25 + 25 for 50; with fewer connections than targets the first targets get
 * one each and the rest none). Each generator writes its script in a directory of its own. Returns
 * the sum of req/s, requests and errors; p50 and p99 are the slowest generator's (wrk gives
 * percentiles, not histograms to merge); `parts` holds each generator's own result.
 */
export async function loadAcross({ targets, connections, dir, ...options }) {
  const runs = targets
    .map((t, i) => ({ ...t, i, connections: Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0) }))
    .filter((t) => t.connections > 0);
  const parts = await Promise.all(
    runs.map((t) => {
      const own = path.join(dir, `generator-${t.i}`);
      mkdirSync(own, { recursive: true });
      return load({ ...options, url: t.url, key: t.key, connections: t.connections, dir: own }).then((r) => ({
        ...r,
        url: t.url,
        connections: t.connections,
      }));
    }),
  );
  const sum = (k) => parts.reduce((n, p) => n + p[k], 0);
  return {
    requests: sum("requests"),
    rps: sum("rps"),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    errors: sum("errors"),
    detail: parts
      .filter((p) => p.errors)
      .map((p) => `${p.url}: ${p.detail}`)
      .join("; "),
    parts,
  };
}

async function loadAutocannon({ url, key, scenario, connections, seconds }) {
  const { default: autocannon } = await import("autocannon");
  const r = await autocannon({
    url: url + scenario.path,
    method: "POST",
    connections,
    duration: seconds,
    timeout: 10,
    headers: headersOf(scenario, key),
    body: scenario.body,
  });
  const errors = r.non2xx + r.errors + r.timeouts;
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    errors,
    detail: errors ? `non2xx=${r.non2xx} errors=${r.errors} timeouts=${r.timeouts}` : "",
  };
}

// ---------------------------------------------------------------------------------------------
// Billing

/** What the billing check compares: root's balance and counters, the consume log's rows and its summed quota. */
export async function ledgerSnapshot(api) {
  const [self, logs, logQuota] = await Promise.all([api.self(), api.consumeLogTotal(), api.consumeLogQuota()]);
  return {
    quota: BigInt(self.quota),
    used: BigInt(self.used_quota),
    count: BigInt(self.request_count),
    logs: BigInt(logs),
    logQuota: BigInt(logQuota),
  };
}

/**
 * Waits (bounded, ~15 s) until the ledger has written everything: the snapshot stops moving and
 * holds at least `completed` new log rows since `before`. Returns the last snapshot.
 */
export async function settleLedger(api, before, completed) {
  let after = await ledgerSnapshot(api);
  for (let i = 0, stable = 0; i < 30 && stable < 3; i++) {
    await sleep(500);
    const s = await ledgerSnapshot(api);
    const same = Object.keys(s).every((k) => s[k] === after[k]);
    stable = same && s.logs - before.logs >= BigInt(completed) ? stable + 1 : 0;
    after = s;
  }
  return after;
}

/**
 * The billing check of a run: `completed` answers (warm-ups included) and up to `slack` more cut
 * off when a generator stopped (billed or not). Passes when the quota went down, the new consume
 * rows number between `completed` and `completed + slack`, and the four records agree exactly:
 * quota taken = used_quota added = the new rows' summed quota, and request_count added = new rows.
 * Returns { lines (to print), failures }.
 */
export function checkLedger(before, after, { completed, slack }) {
  const d = (k) => after[k] - before[k];
  const rows = d("logs");
  const taken = -d("quota");
  const lines = [
    `${completed} requests completed (warm-ups included; up to ${slack} more were cut off when runs stopped)`,
    `  consume log rows: ${before.logs} → ${after.logs} (+${rows}), their quota +${d("logQuota")}`,
    `  root quota: ${before.quota} → ${after.quota} (−${taken}); used_quota +${d("used")}; request_count +${d("count")}` +
      (rows > 0n ? `; ≈${fmt(Number(d("used")) / Number(rows), 2)} quota units/request` : ""),
  ];
  const failures = [];
  if (!(taken > 0n)) failures.push(`billing: root's quota did not go down (${before.quota} → ${after.quota})`);
  if (rows < BigInt(completed) || rows > BigInt(completed + slack)) {
    failures.push(`billing: ${rows} consume log rows for ${completed} completed requests (expected ${completed}…${completed + slack})`);
  }
  if (taken !== d("used") || d("used") !== d("logQuota")) {
    failures.push(`billing: quota taken ${taken}, used_quota added ${d("used")} and the new rows' quota ${d("logQuota")} differ`);
  }
  if (d("count") !== rows) failures.push(`billing: request_count added ${d("count")} for ${rows} new consume rows`);
  return { lines, failures };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function table(headers, rows) {
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? "").length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c ?? "").padStart(w[i])).join(" | ")} |`;
  return [line(headers), `|${w.map((n) => "-".repeat(n + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export const fmt = (n, d = 1) => (n === null || n === undefined || Number.isNaN(n) ? "—" : Number(n).toFixed(d));

/** The token bench runs put on Qiao's /metrics (METRICS_TOKEN), to read its relay workers' event-loop delay. */
export const BENCH_METRICS_TOKEN = "bench-metrics-token";

/**
 * Each relay worker's p99 event-loop delay over the last 5–10 s, in ms, from Qiao's /metrics
 * (qiao_event_loop_delay_p99_seconds): { "relay-1": 0.8, … }; null when /metrics does not answer.
 */
export async function relayLoopDelays(qiao) {
  try {
    const res = await fetch(`${qiao.url}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
    if (!res.ok) return null;
    const out = {};
    for (const m of (await res.text()).matchAll(/^qiao_event_loop_delay_p99_seconds\{process="(relay-[^"]+)"\} (\S+)$/gm)) {
      out[m[1]] = Number(m[2]) * 1000;
    }
    return out;
  } catch {
    return null;
  }
}
