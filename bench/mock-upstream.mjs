// A minimal, fast upstream for the relay benchmark (127.0.0.1 only), speaking OpenAI's chat
// completions and Anthropic's Messages API.
//   node bench/mock-upstream.mjs [port] [--no-usage]   (or PORT=…; 0 / absent = any free port)
// POST /v1/chat/completions: a fixed small completion with `usage`; with `stream: true` a short
// SSE stream (role chunk, 5 content chunks, finish chunk, a usage chunk when
// `stream_options.include_usage`, then [DONE]).
// POST /v1/messages: the same five pieces as a Claude `message`; with `stream: true` Claude's SSE
// stream, framed as Anthropic frames it (`event:` + `data:` lines: message_start with the input
// usage, content_block_start, ping, 5 content_block_delta, content_block_stop, message_delta with
// the output usage, message_stop), which a Claude channel passes through to an Anthropic caller.
// No artificial delay. Prints `READY <port>`.
// `--no-usage`: chat answers carry no usage at all, so the relay has to count tokens itself
// (Claude always reports usage, so its answers keep theirs).
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

// Claude's answers, fixed like the chat ones: the mock must cost the same for every relay it serves.
const CLAUDE_MODEL = "claude-3-5-haiku-20241022";
const CLAUDE_INPUT = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const claudeMessage = Buffer.from(
  JSON.stringify({
    id: "msg_01BenchMock",
    type: "message",
    role: "assistant",
    model: CLAUDE_MODEL,
    content: [{ type: "text", text: PIECES.join("") }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { ...CLAUDE_INPUT, output_tokens: PIECES.length },
  }),
);
const claudeEvent = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const CLAUDE_STREAM = [
  claudeEvent({
    type: "message_start",
    message: {
      id: "msg_01BenchMock",
      type: "message",
      role: "assistant",
      model: CLAUDE_MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...CLAUDE_INPUT, output_tokens: 1 },
    },
  }),
  claudeEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  claudeEvent({ type: "ping" }),
  ...PIECES.map((p) => claudeEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: p } })),
  claudeEvent({ type: "content_block_stop", index: 0 }),
  claudeEvent({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: PIECES.length } }),
];
const CLAUDE_STOP = claudeEvent({ type: "message_stop" });

/** Bodies larger than this are not parsed (only looked at for `"stream":true`). */
const LARGE_BODY = 64 * 1024;

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "content-length": body.length });
  res.end(body);
}

const CHAT_PATH = "/v1/chat/completions";
const MESSAGES_PATH = "/v1/messages";

const server = http.createServer((req, res) => {
  const path = req.url?.split("?", 1)[0];
  if (req.method !== "POST" || (path !== CHAT_PATH && path !== MESSAGES_PATH)) {
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
    if (path === MESSAGES_PATH) return answerClaude(res, body);
    if (body?.stream !== true) return send(res, 200, completion);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const c of STREAM_HEAD) res.write(c);
    if (body.stream_options?.include_usage === true && !noUsage) res.write(USAGE_CHUNK);
    res.end(DONE);
  });
});

/** Written event by event, like the chat stream, so both streams cost the mock alike. */
function answerClaude(res, body) {
  if (body?.stream !== true) return send(res, 200, claudeMessage);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (const e of CLAUDE_STREAM) res.write(e);
  res.end(CLAUDE_STOP);
}

server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`READY ${server.address().port}`));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
