// The floor on undici's lower-level API: the same bare relay as floor.mjs (node:http + undici, no
// auth, no parsing), but the answer goes from undici's dispatch callbacks straight into the
// client's response instead of through `request()`'s Readable body. Qiao's relay uses this API
// too (lib/relay/upstream.ts), so this is the floor for its transport with nothing else on top.
// Like floor.mjs it relays chat completions and Messages alike, to the same path upstream.
//   node bench/floor-dispatch.mjs <port> <upstream-origin>     e.g. 0 http://127.0.0.1:9000
// Prints `READY <port>`.
import http from "node:http";
import { Agent } from "undici";

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const origin = process.argv[3] ?? process.env.UPSTREAM ?? "http://127.0.0.1:9000";
const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: null, pipelining: 1 });
const HEADERS = { "content-type": "application/json" };
const PATHS = new Set(["/v1/chat/completions", "/v1/messages"]);

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || !PATHS.has(req.url)) return void res.writeHead(404).end();
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => {
    const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    let upstream = null;
    let gone = false;
    res.on("close", () => {
      if (res.writableFinished) return;
      gone = true;
      upstream?.abort(new Error("client went away"));
    });
    dispatcher.dispatch(
      { origin, path: req.url, method: "POST", headers: HEADERS, body },
      {
        onRequestStart(controller) {
          upstream = controller;
        },
        onResponseStart(_c, status, headers) {
          res.writeHead(status, { "content-type": headers["content-type"] ?? "application/json" });
        },
        onResponseData(controller, chunk) {
          if (res.write(chunk)) return;
          controller.pause();
          res.once("drain", () => controller.resume());
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError(_c, error) {
          if (gone) return;
          console.error("[floor-dispatch] upstream:", error.message);
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`READY ${server.address().port}`));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
