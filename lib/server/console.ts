// The console process of `npm start`: Next (pages, /api, next-auth) on a Unix socket that only
// the relay workers talk to. It opens the database first (migrations, root account) and says
// so, because the relay workers must not start on a database that is still being migrated. The
// instance's periodic jobs (the scheduled channel test, the task poller) run in this process.
import { existsSync, unlinkSync } from "node:fs";
import http from "node:http";
import next from "next";
import { startChannelTestSchedule } from "@/lib/relay/probe/schedule";
import { startTaskPoller } from "@/lib/tasks/poller";
import { startLogRetention } from "@/lib/logs/retention";
import { startWalCheckpoints } from "@/lib/db/checkpointer";
import { getDb } from "@/lib/db";
import { bridgeCacheBusToParent, toParent } from "@/lib/server/ipc";
import { startBreakers } from "@/lib/channels/breaker";
import { bridgeInstances } from "@/lib/cache/redis-bus";
import { countLimitsInPrimary } from "@/lib/server/limits-ipc";
import { shutdownRelay } from "@/lib/relay/memory/runtime";
import { env } from "@/lib/env";
import { measureRelayState } from "@/lib/server/metrics-sources";
import { metricsInParent } from "@/lib/server/metrics-ipc";
import { componentLogger } from "@/lib/log";

const log = componentLogger("console");

export async function runConsole(socketPath: string) {
  bridgeCacheBusToParent();
  // A key's usage against its limits is read from the counters the relay workers admit against.
  countLimitsInPrimary();
  // The channel list shows the breakers the relay workers open and close.
  startBreakers();
  // With Redis, what is changed here reaches the other instances at once, and theirs arrive here.
  bridgeInstances();
  // Its registry (the playground's calls, tasks, its process) joins every scrape of /metrics.
  measureRelayState();
  metricsInParent();
  await getDb();
  toParent({ qiao: "db-ready" });
  // Periodic jobs run here, once per instance, never in the relay workers.
  startChannelTestSchedule();
  startTaskPoller();
  startLogRetention();
  // SQLite's WAL is copied back into the file here, not in the relay workers' usage batches.
  startWalCheckpoints();
  const app = next({ dev: false, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error({ err: error, method: req.method, path: req.url?.split("?", 1)[0] }, "request failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  if (existsSync(socketPath)) unlinkSync(socketPath);
  await new Promise<void>((resolve, reject) => server.listen(socketPath, resolve).once("error", reject));
  toParent({ qiao: "console-ready", socket: socketPath });
  // The relay workers drain first (lib/server/relay-worker.ts); pages still loading get until
  // SHUTDOWN_TIMEOUT, then whatever this process settled (tasks, the playground) is written.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    let exiting = false;
    const exit = () => {
      if (exiting) return;
      exiting = true;
      void shutdownRelay().finally(() => process.exit(0));
    };
    server.close(exit);
    setTimeout(() => {
      server.closeAllConnections();
      exit();
    }, env.SHUTDOWN_TIMEOUT * 1000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
