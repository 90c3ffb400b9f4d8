// The floor: the bare Node relay the relay issue measures Qiao against ("≥ 0.8 of the floor").
// node:http + undici's documented `request()`, no auth, no parsing: forward the body, stream the
// answer back with the upstream's status and content-type. It relays OpenAI's chat completions and
// Anthropic's Messages API alike, to the same path upstream: the floor of a passthrough stream.
//   node bench/floor.mjs <port> <upstream-origin>     e.g. 0 http://127.0.0.1:9000
// Prints `READY <port>`. (Event listeners + pipe rather than async iteration + stream.pipeline:
// measurably faster here.) floor-dispatch.mjs is the same relay on undici's lower-level dispatch
// API, which is faster still and which Qiao uses; run.mjs reports Qiao against both.
import http from "node:http";
import { Agent, request } from "undici";

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const origin = process.argv[3] ?? process.env.UPSTREAM ?? "http://127.0.0.1:9000";
const PATHS = new Set(["/v1/chat/completions", "/v1/messages"]);
const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: null, pipelining: 1 });

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || !PATHS.has(req.url)) return void res.writeHead(404).end();
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => {
    const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    request(origin + req.url, { method: "POST", headers: { "content-type": "application/json" }, body, dispatcher }).then(
      (up) => {
        res.writeHead(up.statusCode, { "content-type": up.headers["content-type"] ?? "application/json" });
        up.body.on("error", () => res.destroy());
        res.on("close", () => res.writableFinished || up.body.destroy()); // client went away
        up.body.pipe(res);
      },
      (error) => {
        console.error("[floor] upstream:", error.message);
        if (!res.headersSent) res.writeHead(502);
        res.end();
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`READY ${server.address().port}`));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
