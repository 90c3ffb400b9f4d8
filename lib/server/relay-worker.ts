// A relay worker of `npm start`: relay paths straight from the core (lib/relay) over Node's
// http; every other path goes to the console process. Next is never loaded here, so the hot
// path shares its heap, its event loop and its garbage collector with nothing else; nor is
// Prisma: every query a worker makes goes through the database driver (lib/db/direct.ts).
import http from "node:http";
import { env, relayWorkerCount } from "@/lib/env";
import { leaveCheckpointsElsewhere, skipDatabasePreparation } from "@/lib/db/direct";
import { clientIpOf } from "@/lib/net/client-ip";
import { isRelayPath } from "@/lib/relay/endpoints";
import { serveRelayNode } from "@/lib/relay/doors/node";
import { getLedger, shutdownRelay } from "@/lib/relay/memory/runtime";
import { ConsoleProxy } from "@/lib/server/proxy";
import { hitLogViaParent } from "@/lib/server/hit-log";
import { bridgeCacheBusToParent, isServerMessage, toParent } from "@/lib/server/ipc";
import { countHitsIn } from "@/lib/relay/call/rate-limit";
import { countLimitsInPrimary, returnLimitShares } from "@/lib/server/limits-ipc";
import { HEALTH_PATH, healthAnswer, READY_PATH } from "@/lib/server/health";
import { DRAINING_RETRY_AFTER_SECONDS, isDraining, startDraining } from "@/lib/server/drain";
import { METRICS_PATH, metricsAnswer } from "@/lib/metrics/scrape";
import { measureRelayState } from "@/lib/server/metrics-sources";
import { metricsInParent } from "@/lib/server/metrics-ipc";
import { flushLog, logger } from "@/lib/log";

export async function runRelayWorker() {
  let stop: () => void = () => process.exit(0);
  bridgeCacheBusToParent(() => stop());
  // Without Redis, the request limits of all workers are counted by the primary.
  if (!env.REDIS_CONN_STRING && relayWorkerCount() > 1) {
    const viaPrimary = hitLogViaParent((ask) => toParent(ask));
    process.on("message", viaPrimary.onMessage);
    countHitsIn(viaPrimary.store);
  }
  countLimitsInPrimary();
  // GET /metrics here shows the whole instance: the primary gathers every process's registry.
  measureRelayState();
  const instanceMetrics = metricsInParent();
  const proxy = new ConsoleProxy();
  process.on("message", (m: unknown) => {
    if (!isServerMessage(m)) return;
    if (m.qiao === "console-ready") proxy.setTarget(m.socket);
    else if (m.qiao === "console-down") proxy.clearTarget();
  });
  // The tokenizers (~90 MB) are not preloaded: a worker loads them the first time it has to count
  // tokens itself (an upstream without usage). Large request bodies are read in a thread of the
  // worker (lib/relay/request/body-thread.ts), started with the first one.
  // The primary starts relay workers once the console has migrated the database.
  skipDatabasePreparation();
  // The console checkpoints SQLite's WAL (lib/db/checkpointer.ts), not this worker's usage batches.
  leaveCheckpointsElsewhere();
  await getLedger();

  const server = http.createServer((req, res) => {
    const xff = req.headers["x-forwarded-for"];
    const clientIp = clientIpOf(req.socket.remoteAddress, Array.isArray(xff) ? xff.join(",") : (xff ?? null));
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (isRelayPath(path)) {
      // Draining, the relay refuses in the caller's protocol (lib/relay/doors/node.ts).
      serveRelayNode(req, res, clientIp).catch((error) => {
        logger.error({ err: error, component: "relay", method: req.method, path }, "request failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    if (path === HEALTH_PATH || path === READY_PATH) {
      healthAnswer(path).then(
        (a) => res.writeHead(a.status, a.headers).end(a.body),
        (error) => {
          logger.error({ err: error, component: "health" }, "check failed");
          res.writeHead(500).end();
        },
      );
      return;
    }
    if (path === METRICS_PATH && req.method === "GET") {
      metricsAnswer(req.headers.authorization, instanceMetrics).then(
        (a) => res.writeHead(a.status, a.headers).end(a.body),
        (error) => {
          logger.error({ err: error, component: "metrics" }, "scrape failed");
          res.writeHead(500).end();
        },
      );
      return;
    }
    if (isDraining()) return consoleDraining(res);
    void proxy.forward(req, res, clientIp);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => toParent({ qiao: "listening" }));

  // SIGTERM: /readyz says 503 at once and new requests are refused (503, connection: close), while
  // this worker keeps listening so that callers get that answer rather than a refused connection.
  // The requests in flight run until they end, or SHUTDOWN_TIMEOUT, when the streams still open are
  // cut (each settled for what it delivered, as when a client leaves). Then pending usage is
  // written, unused holds are returned, and the worker exits 0.
  let stopping = false;
  stop = () => {
    if (stopping) return;
    stopping = true;
    startDraining();
    const deadline = Date.now() + env.SHUTDOWN_TIMEOUT * 1000;
    logger.info({ shutdownTimeoutSeconds: env.SHUTDOWN_TIMEOUT }, "relay worker draining");
    let finishing = false;
    const finish = () => {
      if (finishing) return;
      finishing = true;
      clearInterval(sweep);
      server.close();
      // Last, the limits' unused shares go back to the primary, so they do not hold its counters.
      void shutdownRelay()
        .then(returnLimitShares)
        .finally(() => {
          server.closeAllConnections();
          flushLog();
          process.exit(0);
        });
    };
    // Connections whose answers have ended (keep-alive) are closed as they go idle; once none is
    // left, nothing is in flight.
    const sweep = setInterval(() => {
      server.closeIdleConnections();
      if (Date.now() >= deadline) return finish();
      server.getConnections((error, open) => {
        if (!error && open === 0) finish();
      });
    }, DRAIN_SWEEP_MS);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

/** How often a draining worker closes idle connections and looks whether any is left. */
const DRAIN_SWEEP_MS = 100;

/** A console page or /api call while draining: the console stops too; another instance answers. */
function consoleDraining(res: http.ServerResponse) {
  const body = JSON.stringify({ success: false, message: "服务正在停止，请稍后再试" });
  res.writeHead(503, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "retry-after": String(DRAINING_RETRY_AFTER_SECONDS),
    connection: "close",
  });
  res.end(body);
}
