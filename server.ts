// `npm start` entry: one Node HTTP server on PORT. Relay paths are served straight from the
// transport-agnostic core in lib/relay (added with the relay); every other path goes to Next.
import http from "node:http";
import next from "next";
import { env } from "@/lib/env";
import { getDb } from "@/lib/db";
import { CLIENT_IP_HEADER, clientIpOf } from "@/lib/net/client-ip";

async function main() {
  const app = next({ dev: false, dir: process.cwd() });
  const [, db] = await Promise.all([app.prepare(), getDb()]);
  void db;
  const handle = app.getRequestHandler();
  const server = http.createServer((req, res) => {
    // Route handlers trust only the address computed here, never a client-sent copy.
    const xff = req.headers["x-forwarded-for"];
    req.headers[CLIENT_IP_HEADER] = clientIpOf(req.socket.remoteAddress, Array.isArray(xff) ? xff.join(",") : (xff ?? null));
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
  const shutdown = () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((error) => {
  console.error("[qiao] failed to start:", error);
  process.exit(1);
});
