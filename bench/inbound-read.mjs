// CPU cost of reading another protocol's call before routing (issue 22 item 1: "the relay reads
// only what it must"), on a recorded agent request: the read the pipeline does now (readInbound:
// the JSON parse, the model, the streaming, the output cap and the reservation's estimate) beside
// what it did before (the full decode into the canonical chat body, its serialisation, the second
// parse of that body, the endpoint's rules and the reservation's estimate on it). The full decode
// now runs only when an attempt converts. Also shown: the decode alone, and the local prompt
// count (the tokenizer; only when the vendor reports no usage). No server. Prints CPU µs per call
// (user + system, median of the rounds).
//   node bench/inbound-read.mjs [--fixture tests/fixtures/agents/claude-code/tool.json] [--calls 2000] [--rounds 5]
import { readFileSync } from "node:fs";
import path from "node:path";
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const calls = Number(args.calls ?? 2000);
const rounds = Number(args.rounds ?? 5);
const root = path.resolve(import.meta.dirname, "..");
const fixturePath = path.resolve(root, String(args.fixture ?? "tests/fixtures/agents/claude-code/tool.json"));

const { readInbound, matchInbound, parseJsonRequest, reservePromptTokens, checkRequestBody, countJsonPromptTokens, CollectedNotes } =
  await importProduct("inbound-read", [
    'export { readInbound, matchInbound } from "./lib/relay/inbound/index.ts";',
    'export { parseJsonRequest, reservePromptTokens } from "./lib/relay/request/request-body.ts";',
    'export { checkRequestBody } from "./lib/relay/request/request-rules.ts";',
    'export { countJsonPromptTokens } from "./lib/relay/openai/token-count.ts";',
    'export { CollectedNotes } from "./lib/relay/inbound/notes.ts";',
  ]);

// The fixture's largest request: what the agent sends on its longest turn.
const fixture = JSON.parse(readFileSync(fixturePath, "utf8"));
const recorded = fixture.requests.reduce((a, b) => (JSON.stringify(b.body).length > JSON.stringify(a.body).length ? b : a));
const [pathname, search = ""] = recorded.path.split("?");
const raw = Buffer.from(typeof recorded.body === "string" ? recorded.body : JSON.stringify(recorded.body));
const matched = matchInbound("POST", pathname, new URLSearchParams(search));
if (!matched || !("call" in matched.match)) throw new Error(`${recorded.path}: no inbound protocol serves it`);
const { protocol, match } = matched;
const req = { method: "POST", path: pathname, query: new URLSearchParams(search), headers: new Headers(), body: raw };
const decoder = new TextDecoder();

/** What the pipeline did before routing: decode, serialise, parse again, check, estimate. */
function oldRead() {
  const body = JSON.parse(decoder.decode(raw));
  const canonical = protocol.toCanonical(body, match.call, new CollectedNotes());
  if (canonical.stream === true) canonical.stream_options = { include_usage: true };
  const bytes = Buffer.from(JSON.stringify(canonical));
  const json = parseJsonRequest(bytes);
  checkRequestBody("chat", json);
  return reservePromptTokens("chat", json, bytes, String(json.model));
}

/** What it does now. */
function newRead() {
  return readInbound(req, protocol, match.call, "bench").reserveTokens;
}

function decodeOnly() {
  return readInbound(req, protocol, match.call, "bench").call.canonical().bytes.length;
}

function localCount() {
  const { call } = readInbound(req, protocol, match.call, "bench");
  return countJsonPromptTokens("chat", call.canonical().json, String(call.info.model));
}

function cpuMicros() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function measure(fn, n) {
  for (let i = 0; i < Math.min(200, n); i++) fn(); // warm-up
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const start = cpuMicros();
    for (let i = 0; i < n; i++) fn();
    results.push((cpuMicros() - start) / n);
  }
  results.sort((a, b) => a - b);
  return results[Math.floor((results.length - 1) / 2)];
}

console.log(
  `[inbound-read] node ${process.version}; ${path.relative(root, fixturePath)}: ${recorded.path}, ${raw.length} bytes (${protocol.name})`,
);
console.log(`reservation estimate: before ${oldRead()} tokens, now ${newRead()} tokens`);
const rows = [
  ["before: decode + serialise + parse again + rules + estimate", measure(oldRead, calls)],
  ["now: readInbound (parse + essentials + estimate)", measure(newRead, calls)],
  ["now, converting: readInbound + canonical()", measure(decodeOnly, calls)],
  ["local prompt count (no vendor usage): canonical + tokenizer", measure(localCount, Math.max(10, Math.floor(calls / 20)))],
];
for (const [name, us] of rows) console.log(`${name.padEnd(62)} ${us.toFixed(1).padStart(9)} µs/call`);
