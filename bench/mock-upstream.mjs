// A minimal, fast OpenAI-compatible upstream for the relay benchmark (127.0.0.1 only).
//   node bench/mock-upstream.mjs [port] [--no-usage]   (or PORT=…; 0 / absent = any free port)
// POST /v1/chat/completions: a fixed small completion with `usage`; with `stream: true` a short
// SSE stream (role chunk, 5 content chunks, finish chunk, a usage chunk when
// `stream_options.include_usage`, then [DONE]). No artificial delay. Prints `READY <port>`.
// `--no-usage`: answers carry no usage at all, so the relay has to count tokens itself.
import http from "node:http";

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const noUsage = process.argv.includes("--no-usage");
const MODEL = "gpt-4o-mini";
const CREATED = 1_700_000_000;
const PIECES = ["Hello", " from", " the", " mock", " upstream."];
const USAGE = { prompt_tokens: 12, completion_tokens: PIECES.length, total_tokens: 12 + PIECES.length };

const completion = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, message: { role: "assistant", content: PIECES.join("") }, logprobs: null, finish_reason: "stop" }],
    usage: noUsage ? undefined : USAGE,
  }),
);

const chunk = (choices, extra = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: CREATED, model: MODEL, choices, ...extra })}\n\n`;
const STREAM_HEAD = [
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]),
  ...PIECES.map((p) => chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }])),
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]),
];
const USAGE_CHUNK = chunk([], { usage: USAGE });
const DONE = "data: [DONE]\n\n";

/** Bodies larger than this are not parsed (only looked at for `"stream":true`). */
const LARGE_BODY = 64 * 1024;

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "content-length": body.length });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || !req.url?.startsWith("/v1/chat/completions")) {
    return send(res, 404, Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}'));
  }
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => {
    const raw = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    let body;
    if (raw.length > LARGE_BODY) {
      // A huge prompt (bench/tokens.mjs): parsing it here would take the CPU the bench measures.
      body = { stream: raw.includes('"stream":true') };
    } else {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return send(res, 400, Buffer.from('{"error":{"message":"bad json","type":"invalid_request_error"}}'));
      }
    }
    if (body?.stream !== true) return send(res, 200, completion);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const c of STREAM_HEAD) res.write(c);
    if (body.stream_options?.include_usage === true && !noUsage) res.write(USAGE_CHUNK);
    res.end(DONE);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`READY ${server.address().port}`));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
