// The primary process of `npm start`. It serves nothing itself: it starts the console process
// (Next) and, once the database is ready, RELAY_WORKERS relay workers that share PORT through
// node:cluster; it passes cache invalidations between them, restarts any that die, and stops
// them all on SIGTERM/SIGINT (workers first write pending usage and return unused holds).
import cluster, { type Worker } from "node:cluster";
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { clientIpSecret, env, relayWorkerCount, sessionSecret } from "@/lib/env";
import { hitLogServer } from "@/lib/server/hit-log";
import { limitsServer } from "@/lib/server/limits-ipc";
import { metricsServer } from "@/lib/server/metrics-ipc";
import { applyWaits, isServerMessage, type ServerMessage } from "@/lib/server/ipc";
import { flushLog, instanceId, logger } from "@/lib/log";

const WORKER_NODE_FLAGS = ["--max-semi-space-size=16"];
// A fixed mmap threshold: glibc otherwise raises it (and its trim threshold) after the first large
// frees, so large passing mallocs (Prisma's startup in the console; in a worker, a tokenizer's
// tables or the first burst of requests) stay in the heap, fragmented, for good.
const MALLOC_MMAP_THRESHOLD_BYTES = 128 * 1024;
const WORKER_ENV = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD_BYTES) };

/** The console opens Prisma (~25 MB of startup mallocs): the same fixed threshold gives them back. */
const CONSOLE_ENV = { MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD_BYTES) };

/** A relay worker's environment: the memory settings above, under the operator's own. */
export function relayWorkerEnv(childEnv: Record<string, string | undefined>): Record<string, string | undefined> {
  return { ...WORKER_ENV, ...childEnv };
}

/** The console's environment: its memory setting, under the operator's own. */
export function consoleEnv<E extends Record<string, string | undefined>>(childEnv: E): E & Record<string, string | undefined> {
  return { ...CONSOLE_ENV, ...childEnv };
}

/** After SHUTDOWN_TIMEOUT, how long the children have to write usage and return holds before SIGKILL. */
export const SHUTDOWN_GRACE_SECONDS = 15;

type Child = { send(m: ServerMessage): void; kill(signal: NodeJS.Signals): void; exited: Promise<void> };

export function runPrimary(entry: string) {
  // Every process must sign sessions and encrypt keys alike: settle the secret once, here. The
  // client-address secret is new at every boot and known only to this process tree.
  // QIAO_INSTANCE_ID: the children's origin on the Redis bus (lib/cache/redis-bus.ts); they hear each other over IPC.
  const childEnv = {
    ...process.env,
    SESSION_SECRET: sessionSecret(),
    QIAO_CLIENT_IP_SECRET: clientIpSecret(),
    QIAO_INSTANCE_ID: instanceId,
  };
  const socketPath = path.join(os.tmpdir(), `qiao-console-${process.pid}.sock`);
  const workers = new Set<Child>();
  let consoleChild: Child | null = null;
  let consoleSocket: string | null = null;
  let stopping = false;
  let announced = false;
  const count = relayWorkerCount();

  // Without Redis, the workers' request limits count here, in one place.
  const hitLogs = hitLogServer();
  // Likewise the key, user, group and model limits (and the console reads them here).
  const limits = limitsServer();
  // A scrape of /metrics on any worker gathers every process's registry here.
  const metrics = metricsServer();

  const relay = (from: Child | null, m: ServerMessage) => {
    for (const c of [consoleChild, ...workers]) if (c && c !== from) c.send(m);
  };

  // An invalidation the publisher waits on: passed on to every other child, each asked to
  // acknowledge it, and acknowledged to the publisher once all have (or exited, or timed out).
  const applies = applyWaits();
  const relayCache = (from: Child, m: Extract<ServerMessage, { qiao: "cache" }>) => {
    const { ack } = m;
    if (ack === undefined) return relay(from, m);
    const others = [consoleChild, ...workers].filter((c): c is Child => c !== null && c !== from);
    const each = others.map((c) => Promise.race([applies.wait((id) => c.send({ qiao: "cache", event: m.event, ack: id })), c.exited]));
    void Promise.all(each).then(() => from.send({ qiao: "cache-applied", ack }));
  };

  const onMessage = (from: Child) => (m: unknown) => {
    if (!isServerMessage(m)) return;
    switch (m.qiao) {
      case "cache":
        relayCache(from, m);
        break;
      case "cache-applied":
        applies.applied(m.ack);
        break;
      case "db-ready":
        if (workers.size === 0) for (let i = 0; i < count; i++) startWorker();
        break;
      case "console-ready":
        consoleSocket = m.socket;
        for (const w of workers) w.send(m);
        break;
      case "hit-log":
        hitLogs(m, (answer) => from.send(answer));
        break;
      case "limits":
        limits.handle(m, from);
        break;
      case "metrics":
        metrics.ask(
          from,
          m.id,
          [consoleChild, ...workers].filter((c): c is Child => c !== null),
        );
        break;
      case "metrics-report":
        metrics.report(from, m);
        break;
      case "listening":
        if (!announced) {
          announced = true;
          logger.info({ url: `http://localhost:${env.PORT}`, relayWorkers: count }, "console and relay listening");
        }
        break;
    }
  };

  const wrapWorker = (w: Worker): Child => ({
    send: (m) => w.isConnected() && w.send(m, undefined, () => undefined),
    kill: (signal) => w.process.kill(signal),
    exited: new Promise((r) => w.once("exit", () => r())),
  });
  const wrapProcess = (p: ChildProcess): Child => ({
    send: (m) => p.connected && p.send(m, undefined, undefined, () => undefined),
    kill: (signal) => p.kill(signal),
    exited: new Promise((r) => p.once("exit", () => r())),
  });

  const restartDelay = new Map<string, number>();
  const again = (name: string, start: () => void) => {
    if (stopping) return;
    const delay = Math.min(30_000, (restartDelay.get(name) ?? 500) * 2);
    restartDelay.set(name, delay);
    setTimeout(start, delay).unref();
  };

  // Relay workers: a young generation of up to 16 MB semi-spaces, so a collection comes every
  // ~400 calls rather than every ~50 (at 2 MB each copied the same in-flight calls: 30–37 µs a
  // json call against 7–9, ~10–20 MB more per worker; bench/HISTORY.md), two malloc arenas
  // instead of one per thread and a fixed mmap threshold. The operator's own settings win.
  cluster.setupPrimary({ exec: entry, execArgv: [...WORKER_NODE_FLAGS, ...process.execArgv] });
  const workerEnv = relayWorkerEnv(childEnv);
  function startWorker() {
    const w = cluster.fork(workerEnv);
    const child = wrapWorker(w);
    workers.add(child);
    w.on("message", onMessage(child));
    w.once("online", () => consoleSocket && child.send({ qiao: "console-ready", socket: consoleSocket }));
    w.once("exit", (code, signal) => {
      workers.delete(child);
      limits.gone(child);
      metrics.gone(child);
      if (!stopping) {
        logger.error({ exit: code ?? signal }, "relay worker exited; starting another");
        again("worker", startWorker);
      }
    });
  }

  function startConsole() {
    const p = fork(entry, [], {
      env: { ...consoleEnv(childEnv), QIAO_ROLE: "console", QIAO_CONSOLE_SOCKET: socketPath },
      execArgv: process.execArgv,
    });
    const child = wrapProcess(p);
    consoleChild = child;
    p.on("message", onMessage(child));
    p.once("exit", (code, signal) => {
      if (consoleChild === child) consoleChild = null;
      limits.gone(child);
      metrics.gone(child);
      consoleSocket = null;
      for (const w of workers) w.send({ qiao: "console-down" });
      if (!stopping) {
        logger.error({ exit: code ?? signal }, "console process exited; starting another");
        again("console", startConsole);
      }
    });
  }

  startConsole();

  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const all = [consoleChild, ...workers].filter((c): c is Child => c !== null);
    for (const c of all) c.kill("SIGTERM");
    // The children let requests in flight run for SHUTDOWN_TIMEOUT, then write usage and return
    // holds: only one stuck past that and its grace is killed.
    const force = setTimeout(
      () => {
        for (const c of all) c.kill("SIGKILL");
      },
      (env.SHUTDOWN_TIMEOUT + SHUTDOWN_GRACE_SECONDS) * 1000,
    );
    force.unref();
    void Promise.all(all.map((c) => c.exited)).then(() => {
      flushLog();
      process.exit(0);
    });
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
