// A relay worker of `npm start`: relay paths straight from the core (lib/relay) over Node's
// http; every other path goes to the console process. Next is never loaded here, so the hot
// path shares its heap, its event loop and its garbage collector with nothing else; nor is
// Prisma: every query a worker makes goes through the database driver (lib/db/direct.ts).
import http from "node:http";
import { env, relayWorkerCount } from "@/lib/env";
import { skipDatabasePreparation } from "@/lib/db/direct";
import { clientIpOf } from "@/lib/net/client-ip";
import { isRelayPath } from "@/lib/relay/endpoints";
import { serveRelayNode } from "@/lib/relay/doors/node";
import { getLedger, shutdownRelay } from "@/lib/relay/memory/runtime";
import { ConsoleProxy } from "@/lib/server/proxy";
import { hitLogViaParent } from "@/lib/server/hit-log";
import { bridgeCacheBusToParent, isServerMessage, toParent } from "@/lib/server/ipc";
import { countHitsIn } from "@/lib/relay/call/rate-limit";
import { countLimitsInPrimary, returnLimitShares } from "@/lib/server/limits-ipc";

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
  await getLedger();

  const server = http.createServer((req, res) => {
    const xff = req.headers["x-forwarded-for"];
    const clientIp = clientIpOf(req.socket.remoteAddress, Array.isArray(xff) ? xff.join(",") : (xff ?? null));
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    if (isRelayPath(q < 0 ? url : url.slice(0, q))) {
      serveRelayNode(req, res, clientIp).catch((error) => {
        console.error("[relay] request failed:", error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    void proxy.forward(req, res, clientIp);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => toParent({ qiao: "listening" }));

  // Stop taking requests, let streams finish, then write pending usage and return unused holds.
  let stopping = false;
  stop = () => {
    if (stopping) return;
    stopping = true;
    // Last, the limits' unused shares go back to the primary, so they do not hold its counters.
    const exit = () =>
      void shutdownRelay()
        .then(returnLimitShares)
        .finally(() => process.exit(0));
    server.close(exit);
    server.closeIdleConnections();
    setTimeout(exit, 10_000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
