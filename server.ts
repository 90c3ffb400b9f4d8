// `npm start` entry: one Node HTTP server on PORT. Relay paths are served straight from the
// transport-agnostic core in lib/relay (added with the relay); every other path goes to Next.
import http from "node:http";
import next from "next";
import { env } from "@/lib/env";
import { getDb } from "@/lib/db";
import { CLIENT_IP_HEADER, clientIpOf } from "@/lib/net/client-ip";
import { isRelayPath } from "@/lib/relay/http";
import { serveRelayNode } from "@/lib/relay/node";
import { getLedger, shutdownRelay } from "@/lib/relay/runtime";
import { preloadTokenizers } from "@/lib/relay/tokens";

async function main() {
  const app = next({ dev: false, dir: process.cwd() });
  await Promise.all([app.prepare(), getDb().then(() => getLedger()), preloadTokenizers()]);
  const handle = app.getRequestHandler();
  const server = http.createServer((req, res) => {
    // Route handlers trust only the address computed here, never a client-sent copy.
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
    req.headers[CLIENT_IP_HEADER] = clientIp;
    handle(req, res).catch((error) => {
      console.error("[server] request failed:", error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => {
    console.log(`[qiao] console and relay on http://localhost:${env.PORT}`);
  });
  // Stop taking requests, let streams finish, then write pending usage and return unused holds.
  const shutdown = () => {
    server.close(() => void shutdownRelay().finally(() => process.exit(0)));
    setTimeout(() => void shutdownRelay().finally(() => process.exit(0)), 10_000).unref();
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((error) => {
  console.error("[qiao] failed to start:", error);
  process.exit(1);
});
