// `npm run agents:live`: the real coding agents through the real Qiao server, as their users would
// run them. It starts the production server (`scripts/start.mjs`, building first when the sources
// changed) on a fresh SQLite database, signs in as root through /api like an operator, prices the
// agents' models, creates a user with a balance and, per run, a key of that user, and creates one
// channel of each family (OpenAI type 1, Claude type 14, Gemini type 24) whose base URL is a
// scripted vendor on loopback (tests/agents/vendors.ts: each vendor's wire format, a call of the
// agent's file-reading tool and then text) and whose model mapping sends every agent model to the
// family's model. Then each installed agent (Codex also in its variants) runs against Qiao with the
// user's key, configured exactly as tests/agents/agents.ts configures it, once per family with only
// that family's channel enabled, in the plain and the tool scenario.
//
// Each run is judged on what a user and an operator would see: the agent exits 0 and prints the
// scripted final text; in the tool scenario the agent's tool really ran (the file's content reached
// a later upstream call); every model call Qiao answered was 2xx and went to that family's channel;
// the log holds one consume row per model call, on that channel, and the user's balance moved by
// exactly the sum of those rows. Qiao's `x-qiao-dropped` headers are shown beside the result. The
// agents talk to Qiao through a small recording front on loopback, which is how the script sees
// their requests and Qiao's answers (status, headers, error bodies) without touching either.
//
// It needs the agents installed (`npm run record:agents` installs them into QIAO_AGENTS_DIR); it is
// a manual check, not part of `npm test`.
//
//   QIAO_AGENTS_DIR=/tmp/qiao-agents   where the agents are installed (default /tmp/qiao-agents)
//   QIAO_LIVE_ONLY=codex,claude-code   only these agents or variants (an agent takes its variants along)
//   QIAO_CODEX_MODEL=gpt-5.5           also run Codex configured with this model (as `codex-gpt-5.5`)
//   QIAO_LIVE_FAMILIES=Claude,Gemini   only these channel families
//   QIAO_LIVE_PORT=3190                Qiao's port (default: a free one)
//   QIAO_LIVE_TIMEOUT=180              seconds one agent run may take
//   QIAO_LIVE_KEEP=1                   keep the temp folder (database, server log, agents' homes, and
//                                      each run's exchanges.json: its requests, Qiao's answers, the upstream calls)
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { type VendorApi, vendorRequestProblems } from "@/tests/helpers/vendor-requests";
import { AGENT_SPECS, type AgentSpec, type Env, isolatedEnv, NOTES_TEXT, PROMPTS, readFilePlan, runAgent } from "./agents";
import { type AgentFixture, fixturePath, SCENARIOS, type Scenario, VARIANTS } from "./fixture";
import { type CapturedRequest, type Recorder, type ScriptedVendor, startRecorder } from "./recorder";
import { FINAL_TEXT, PLAIN_TEXT, type Script, scriptedVendor, type ToolCallPlan } from "./vendors";

const ROOT = path.resolve(import.meta.dirname, "../..");
const AGENTS_DIR = path.resolve(process.env.QIAO_AGENTS_DIR ?? "/tmp/qiao-agents");
const RUN_TIMEOUT_MS = (Number(process.env.QIAO_LIVE_TIMEOUT) || 180) * 1000;
const START_TIMEOUT_MS = 15 * 60_000;
const only = process.env.QIAO_LIVE_ONLY?.split(",").map((s) => s.trim());
const onlyFamilies = process.env.QIAO_LIVE_FAMILIES?.split(",").map((s) => s.trim().toLowerCase());

/** The models the agents ask for (their current releases, as recorded under tests/fixtures/agents). */
const AGENT_MODELS = [
  "claude-opus-5-5",
  "claude-sonnet-4-5",
  "claude-haiku-4-5",
  "gpt-6.2-sol",
  "gpt-5.4",
  "gemini-3.1-pro-preview",
  "gemini-3.5-flash-lite",
  "gemini-2.5-pro",
  "gemini-2.5-flash",
  "gemini-2.5-flash-lite",
  "qwen3-coder-plus",
  ...(process.env.QIAO_CODEX_MODEL ? [process.env.QIAO_CODEX_MODEL] : []),
];

type FamilyName = "OpenAI" | "Claude" | "Gemini";
interface Family {
  name: FamilyName;
  type: number;
  /** The model the channel maps every agent model to. */
  upstreamModel: string;
  /** A key of the vendor's shape; the scripted vendor takes any. */
  key: string;
}
const FAMILIES: Family[] = [
  { name: "OpenAI", type: 1, upstreamModel: "gpt-5", key: "sk-live-openai-upstream" },
  { name: "Claude", type: 14, upstreamModel: "claude-sonnet-4-5", key: "sk-ant-live-upstream" },
  { name: "Gemini", type: 24, upstreamModel: "gemini-2.5-pro", key: "AIza-live-upstream" },
].filter((f) => !onlyFamilies || onlyFamilies.includes(f.name.toLowerCase())) as Family[];

/** One configuration of an agent: its default one, or a variant (Codex configured with a model). */
interface Run {
  id: string;
  spec: AgentSpec;
  codexModel?: string;
}

const codexSpec = AGENT_SPECS.find((s) => s.name === "codex")!;
const extraCodexModel = process.env.QIAO_CODEX_MODEL || undefined;
const RUNS: Run[] = [
  ...AGENT_SPECS.map((spec) => ({ id: spec.name as string, spec })),
  ...VARIANTS.map((v) => ({ id: v.id as string, spec: codexSpec, codexModel: v.codexModel as string })),
  // A model asked for on the command line adds a run of Codex configured with it.
  ...(extraCodexModel && !VARIANTS.some((v) => v.codexModel === extraCodexModel)
    ? [{ id: `codex-${extraCodexModel}`, spec: codexSpec, codexModel: extraCodexModel }]
    : []),
].filter((r) => !only || only.includes(r.id) || only.includes(r.spec.name));

const binPath = (spec: AgentSpec) => path.join(AGENTS_DIR, "node_modules", ".bin", spec.bin);

// ---------------------------------------------------------------- the scripted vendors

/** What the scripted vendors do for the run under way; one per run, read at each upstream call. */
interface RunScript {
  scenario: Scenario;
  spec: AgentSpec;
  notes: string;
  /** Set when a vendor answered with a call of the agent's tool. */
  toolCalled: ToolCallPlan | null;
}
let current: RunScript | null = null;

const liveScript: Script = {
  get scenario() {
    return current?.scenario ?? "plain";
  },
  planToolCall(tools) {
    if (!current) return null;
    const plan = readFilePlan(current.spec, tools, current.notes);
    if (plan) current.toolCalled = plan;
    return plan;
  },
};

/** OpenAI's one base URL serves both its APIs, as api.openai.com does. */
function openaiVendor(): ScriptedVendor {
  const chat = scriptedVendor("openai", liveScript);
  const responses = scriptedVendor("responses", liveScript);
  return (req, body) => (req.path.split("?")[0]!.endsWith("/responses") ? responses(req, body) : chat(req, body));
}

function vendorOf(family: FamilyName): ScriptedVendor {
  if (family === "OpenAI") return openaiVendor();
  return scriptedVendor(family === "Claude" ? "anthropic" : "gemini", liveScript);
}

// ---------------------------------------------------------------- the front between agent and Qiao

/** One request an agent sent to Qiao and what Qiao answered. */
interface Exchange {
  method: string;
  path: string;
  model: string | null;
  status: number;
  dropped: string | null;
  /** The answer's first bytes when it was not 2xx. */
  error: string;
  /** With QIAO_LIVE_KEEP: the request's body and the whole answer, written beside the run. */
  body?: string;
  answer?: string;
}

const KEEP = process.env.QIAO_LIVE_KEEP === "1";

/** A pass-through HTTP front: forwards everything to Qiao as is and notes what went by. */
async function startFront(target: string): Promise<{ url: string; exchanges: Exchange[]; close(): Promise<void> }> {
  const exchanges: Exchange[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const exchange: Exchange = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        model: modelOf(req.url ?? "/", body.toString("utf8")),
        status: 0,
        dropped: null,
        error: "",
        ...(KEEP ? { body: body.toString("utf8"), answer: "" } : {}),
      };
      exchanges.push(exchange);
      const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        exchange.status = answer.statusCode ?? 0;
        const dropped = answer.headers["x-qiao-dropped"];
        exchange.dropped = dropped === undefined ? null : String(dropped);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on("data", (c: Buffer) => {
          if (exchange.status >= 300 && exchange.error.length < 600) exchange.error += c.toString("utf8");
          if (exchange.answer !== undefined) exchange.answer += c.toString("utf8");
          res.write(c);
        });
        answer.on("end", () => res.end());
      });
      up.on("error", (err) => {
        exchange.error = String(err);
        res.destroy();
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function modelOf(url: string, body: string): string | null {
  const inPath = /\/models\/([^/:?]+):/.exec(url);
  if (inPath) return decodeURIComponent(inPath[1]!);
  try {
    const model = JSON.parse(body)?.model;
    return typeof model === "string" ? model : null;
  } catch {
    return null;
  }
}

/** Model calls go upstream and are billed; model lists and token counts Qiao answers itself. */
function isModelCall(e: { method: string; path: string }): boolean {
  if (e.method !== "POST") return false;
  const p = e.path.split("?")[0]!;
  return (
    /\/v1\/(messages|responses|chat\/completions)$/.test(p) || /\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.test(p)
  );
}

/** How many model calls the agent's recorded session (tests/fixtures/agents) holds; null without one. */
function recordedModelCalls(id: string, scenario: Scenario): number | null {
  const file = fixturePath(id, scenario);
  if (!existsSync(file)) return null;
  const fixture = JSON.parse(readFileSync(file, "utf8")) as AgentFixture;
  return fixture.requests.filter(isModelCall).length;
}

/** The vendor API an upstream request of a family's channel speaks. */
function vendorApiOf(family: FamilyName, upstreamPath: string): VendorApi {
  if (family === "Claude") return "anthropic";
  if (family === "Gemini") return "gemini";
  return upstreamPath.split("?")[0]!.endsWith("/responses") ? "openai-responses" : "openai-chat";
}

const passedThrough = (api: VendorApi, spec: AgentSpec) =>
  (api === "anthropic" && spec.protocol === "anthropic") ||
  (api === "gemini" && spec.protocol === "gemini") ||
  (api === "openai-responses" && spec.protocol === "responses");

const JSON_SCHEMA_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * Where a JSON Schema sent to OpenAI or Anthropic (a structured output's, a tool's parameters)
 * names a type JSON Schema does not have, such as Gemini's upper-case `OBJECT`: Gemini takes
 * those, OpenAI and Anthropic validate the schema they are given.
 */
function nonJsonSchemaTypes(api: VendorApi, body: Record<string, any> | null): string[] {
  if (!body || (api !== "anthropic" && api !== "openai-chat")) return [];
  const schemas: [string, unknown][] =
    api === "anthropic"
      ? [
          ["output_config.format.schema", body.output_config?.format?.schema],
          ...(body.tools ?? []).map((t: any): [string, unknown] => [`tools[${t.name}].input_schema`, t.input_schema]),
        ]
      : [
          ["response_format.json_schema.schema", body.response_format?.json_schema?.schema],
          ...(body.tools ?? []).map((t: any): [string, unknown] => [
            `tools[${t.function?.name}].function.parameters`,
            t.function?.parameters,
          ]),
        ];
  const found: string[] = [];
  const walk = (where: string, node: unknown) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(`${where}[${i}]`, n));
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      const types = key === "type" ? (Array.isArray(value) ? value : [value]) : [];
      const odd = types.filter((t) => typeof t === "string" && !JSON_SCHEMA_TYPES.has(t));
      if (odd.length) found.push(`${where}.type is ${odd.map((t) => JSON.stringify(t)).join(", ")}, not a JSON Schema type`);
      // `properties` maps names to schemas: a property called `type` is not a type.
      if (key === "properties" && value && typeof value === "object")
        for (const [name, sub] of Object.entries(value)) walk(`${where}.properties.${name}`, sub);
      else if (typeof value === "object") walk(`${where}.${key}`, value);
    }
  };
  for (const [where, schema] of schemas) walk(where, schema);
  return found;
}

// ---------------------------------------------------------------- Qiao, through its console API

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `npm start` on a fresh SQLite database in `dir`; its output goes to `dir/server.log`. */
async function startQiao(dir: string): Promise<Server> {
  const port = Number(process.env.QIAO_LIVE_PORT) || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(dir, "server.log");
  let log = "";
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/start.mjs")], {
    cwd: ROOT,
    // Its own process group, so stopping it ends the server's workers too.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // Only what the server needs: nothing of this shell's SQL_DSN or REDIS_CONN_STRING leaks in.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: path.join(dir, "data"),
      SQLITE_PATH: path.join(dir, "data", "qiao.db"),
      SESSION_SECRET: randomBytes(24).toString("hex"),
      RELAY_WORKERS: "1",
      NEXT_TELEMETRY_DISABLED: "1",
    } as Env as NodeJS.ProcessEnv,
  });
  const keep = (chunk: Buffer) => {
    log += chunk.toString();
    writeFileSync(logFile, log);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || !child.pid) return;
    process.kill(-child.pid, "SIGTERM");
    const killed = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(killed);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Qiao exited (${child.exitCode}); see ${logFile}:\n${log.slice(-3000)}`);
    try {
      if ((await fetch(`${url}/api/status`)).ok) return { url, child, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`Qiao did not start within ${START_TIMEOUT_MS / 1000}s; see ${logFile}`);
}

/** A signed-in console session: the cookie and the New-Api-User header the console sends. */
interface Session {
  id: number;
  cookie: string;
}

async function api<T = any>(base: string, session: Session | null, method: string, route: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (session) Object.assign(headers, { cookie: session.cookie, "new-api-user": String(session.id) });
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json().catch(() => null)) as { success?: boolean; message?: string; data?: T } | null;
  if (!res.ok || !json?.success) throw new Error(`${method} ${route} → ${res.status} ${json?.message ?? ""}`);
  return json.data as T;
}

async function login(base: string, username: string, password: string): Promise<Session> {
  const res = await fetch(`${base}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const json = (await res.json()) as { success: boolean; message: string; data: { id: number } };
  if (!json.success) throw new Error(`login as ${username} → ${res.status} ${json.message}`);
  return { id: json.data.id, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]! };
}

/** Adds prices for `models` to a JSON map option (ModelRatio, CompletionRatio), keeping the rest. */
async function addPrices(base: string, root: Session, key: string, models: string[], value: number) {
  const options = await api<{ key: string; value: string }[]>(base, root, "GET", "/api/option/");
  const map = JSON.parse(options.find((o) => o.key === key)?.value || "{}") as Record<string, number>;
  for (const m of models) map[m] ??= value;
  await api(base, root, "PUT", "/api/option/", { key, value: JSON.stringify(map) });
}

interface LogRow {
  type: number;
  channel: number;
  model_name: string;
  quota: number;
  token_name: string;
}

const consumeRows = (base: string, root: Session, token: string) =>
  api<{ items: LogRow[] }>(base, root, "GET", `/api/log/?type=2&p=0&page_size=100&token_name=${encodeURIComponent(token)}`).then((page) =>
    page.items.filter((r) => r.token_name === token),
  );

const balance = (base: string, user: Session) => api<{ quota: number }>(base, user, "GET", "/api/user/self").then((u) => Number(u.quota));

// ---------------------------------------------------------------- one run

interface Outcome {
  run: string;
  family: FamilyName;
  scenario: Scenario;
  failures: string[];
  exit: number | null;
  printed: boolean;
  toolRan: boolean | null;
  modelCalls: number;
  rows: number;
  quota: { rows: number; moved: number };
  /** What a real vendor might refuse that the checks above do not decide (see nonJsonSchemaTypes). */
  notes: string[];
  dropped: string[];
  exchanges: Exchange[];
  output: string;
}

/** The text an agent printed, with whitespace and markdown emphasis evened out for the comparison. */
const flat = (text: string) =>
  text
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, "")
    .replace(/[*_`]/g, "")
    .replace(/\s+/g, " ");

async function liveRun(
  ctx: { base: string; root: Session; user: Session; tmp: string; channels: Map<FamilyName, number>; upstreams: Map<FamilyName, Recorder> },
  run: Run,
  family: Family,
  scenario: Scenario,
): Promise<Outcome> {
  const dir = realpathSync(mkdtempSync(path.join(ctx.tmp, `${run.id}-${family.name}-${scenario}-`)));
  const home = path.join(dir, "home");
  const work = path.join(dir, "project");
  for (const d of [home, work, path.join(home, "tmp")]) mkdirSync(d, { recursive: true });
  const notes = path.join(work, "notes.txt");
  writeFileSync(notes, NOTES_TEXT);
  // A key per run, so its log rows are the run's alone.
  const tokenName = `${run.id}-${family.name}-${scenario}`.slice(0, 30);
  const token = await api<{ key: string }>(ctx.base, ctx.user, "POST", "/api/token/", {
    name: tokenName,
    unlimited_quota: true,
    expired_time: -1,
  });
  const before = await balance(ctx.base, ctx.user);
  const marks = new Map([...ctx.upstreams].map(([name, r]) => [name, r.requests.length]));
  const front = await startFront(ctx.base);
  current = { scenario, spec: run.spec, notes, toolCalled: null };
  const { env, args } = run.spec.prepare({ home, work, url: front.url, key: token.key, codexModel: run.codexModel }, PROMPTS[scenario]);
  const { code, output } = await runAgent(binPath(run.spec), args, work, { ...isolatedEnv(home), ...env }, RUN_TIMEOUT_MS);
  const toolCalled = current.toolCalled;
  current = null;
  await front.close();

  const failures: string[] = [];
  const exchanges = front.exchanges;
  const calls = exchanges.filter(isModelCall);
  const answered = calls.filter((e) => e.status >= 200 && e.status < 300);
  for (const e of calls.filter((c) => !answered.includes(c)))
    failures.push(`${e.method} ${e.path.split("?")[0]} (${e.model}) → ${e.status}: ${e.error.replace(/\s+/g, " ").slice(0, 200)}`);
  if (calls.length === 0) failures.push("no model call reached Qiao");
  // An agent that retries (a side call whose answer it could not use, a stream it found broken)
  // still ends well, only later and billed more: against the vendor itself it makes the calls
  // its recording holds.
  const recorded = recordedModelCalls(run.id, scenario);
  if (recorded !== null && calls.length > recorded)
    failures.push(`${calls.length} model calls where the agent makes ${recorded} against the vendor itself (it retried)`);

  // Upstream: every call on this family's channel, and in the tool scenario the file's content in a later one.
  const upstreamOf = (name: FamilyName) => ctx.upstreams.get(name)!.requests.slice(marks.get(name));
  for (const other of FAMILIES.filter((f) => f.name !== family.name)) {
    const stray = upstreamOf(other.name).length;
    if (stray) failures.push(`${stray} upstream call(s) went to the ${other.name} channel`);
  }
  const mine: CapturedRequest[] = upstreamOf(family.name);
  let toolRan: boolean | null = null;
  if (scenario === "tool") {
    // The file's text is nowhere in what the agent sends before its tool reads it (the first call
    // sees the folder listing at most), so finding it in a later call means the tool ran.
    const carries = (r: CapturedRequest) => r.body.includes(NOTES_TEXT.trim());
    toolRan = mine.length > 1 && !carries(mine[0]!) && mine.some(carries);
    if (!toolCalled) failures.push("the vendor found no file-reading tool of the agent to call");
    else if (!toolRan) failures.push(`the tool ${toolCalled.name} was called but the file's content never reached the vendor`);
  }

  // The scripted vendors answer whatever they get; the real ones refuse a body outside their
  // documented shape (tests/helpers/vendor-requests.ts, as the replay tests check it). A body
  // passed through as the agent sent it is the agent's own and is not judged here.
  const bodyNotes: string[] = [];
  for (const r of mine.filter((u) => u.method === "POST")) {
    const api = vendorApiOf(family.name, r.path);
    if (passedThrough(api, run.spec)) continue;
    const body = JSON.parse(r.body || "null");
    for (const problem of vendorRequestProblems(api, body, family.upstreamModel)) failures.push(`upstream ${api} body: ${problem}`);
    for (const where of nonJsonSchemaTypes(api, body)) bodyNotes.push(`upstream ${api} body: ${where}`);
  }

  const expected = scenario === "plain" ? PLAIN_TEXT : FINAL_TEXT;
  const printed = flat(output).includes(flat(expected));
  if (code !== 0) failures.push(`exit ${code}`);
  if (!printed) failures.push(`did not print "${expected}"`);

  // Billing settles after the answer: wait until every answered call has its row, or give up.
  let rows: LogRow[] = [];
  for (let i = 0; i < 40; i++) {
    rows = await consumeRows(ctx.base, ctx.root, tokenName);
    if (rows.length >= answered.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, 300));
  rows = await consumeRows(ctx.base, ctx.root, tokenName);
  const after = await balance(ctx.base, ctx.user);
  const rowsQuota = rows.reduce((sum, r) => sum + r.quota, 0);
  if (rows.length !== answered.length) failures.push(`${rows.length} consume row(s) for ${answered.length} answered model call(s)`);
  if (mine.filter((r) => r.method === "POST").length < answered.length)
    failures.push(`${answered.length} answered model call(s) but ${mine.length} upstream request(s)`);
  const channel = ctx.channels.get(family.name);
  const elsewhere = rows.filter((r) => r.channel !== channel);
  if (elsewhere.length) failures.push(`${elsewhere.length} row(s) name another channel than ${channel}`);
  if (rows.some((r) => r.quota <= 0)) failures.push("a consume row bills nothing");
  if (before - after !== rowsQuota) failures.push(`balance moved by ${before - after}, the rows sum to ${rowsQuota}`);

  if (KEEP) writeFileSync(path.join(dir, "exchanges.json"), `${JSON.stringify({ exchanges, upstream: mine, output }, null, 2)}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return {
    run: run.id,
    family: family.name,
    scenario,
    failures,
    exit: code,
    printed,
    toolRan,
    modelCalls: calls.length,
    rows: rows.length,
    quota: { rows: rowsQuota, moved: before - after },
    notes: [...new Set(bodyNotes)],
    dropped: [...new Set(exchanges.flatMap((e) => (e.dropped ? [e.dropped] : [])))],
    exchanges,
    output: output.trim().split("\n").slice(-8).join("\n"),
  };
}

// ---------------------------------------------------------------- the whole check

async function setChannelStatus(base: string, root: Session, id: number, enabled: boolean) {
  await api(base, root, "PUT", "/api/channel/", { id, status: enabled ? 1 : 2 });
}

async function main() {
  const installed = RUNS.filter((r) => existsSync(binPath(r.spec)));
  if (installed.length === 0) {
    console.log(
      `agents:live skipped: no coding agent is installed in ${AGENTS_DIR}. Install them with \`npm run record:agents\` ` +
        "(or point QIAO_AGENTS_DIR at a folder where they are installed).",
    );
    return;
  }
  const missing = RUNS.filter((r) => !installed.includes(r));
  if (missing.length) console.log(`not installed in ${AGENTS_DIR}, skipped: ${missing.map((r) => r.id).join(", ")}`);

  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "qiao-live-")));
  const upstreams = new Map<FamilyName, Recorder>();
  let qiao: Server | null = null;
  const outcomes: Outcome[] = [];
  try {
    for (const f of FAMILIES) upstreams.set(f.name, await startRecorder(vendorOf(f.name)));
    console.log(`starting Qiao (npm start; it builds first when the sources changed), log in ${tmp}/server.log`);
    qiao = await startQiao(tmp);
    const base = qiao.url;
    console.log(`Qiao is up at ${base}`);

    // The operator's part, through the console API: prices, a user with a balance, the channels.
    const root = await login(base, "root", "123456");
    const models = [...new Set([...AGENT_MODELS, ...FAMILIES.map((f) => f.upstreamModel)])];
    await addPrices(base, root, "ModelRatio", models, 2);
    await addPrices(base, root, "CompletionRatio", models, 3);
    const password = "agents-live-pass";
    await api(base, root, "POST", "/api/user/", { username: "agents", password });
    const found = await api<{ items: { id: number; username: string }[] }>(base, root, "GET", "/api/user/search?keyword=agents");
    const userId = found.items.find((u) => u.username === "agents")!.id;
    await api(base, root, "PUT", "/api/user/", { id: userId, quota: 500_000_000 });
    const user = await login(base, "agents", password);

    const channels = new Map<FamilyName, number>();
    for (const f of FAMILIES) {
      await api(base, root, "POST", "/api/channel/", {
        type: f.type,
        name: `live ${f.name}`,
        key: f.key,
        base_url: upstreams.get(f.name)!.url,
        models,
        group: "default",
        model_mapping: JSON.stringify(
          Object.fromEntries(AGENT_MODELS.filter((m) => m !== f.upstreamModel).map((m) => [m, f.upstreamModel])),
        ),
        status: 2,
      });
    }
    const list = await api<{ items: { id: number; name: string }[] }>(base, root, "GET", "/api/channel/?p=0&page_size=100");
    for (const f of FAMILIES) channels.set(f.name, list.items.find((c) => c.name === `live ${f.name}`)!.id);

    for (const family of FAMILIES) {
      for (const f of FAMILIES) await setChannelStatus(base, root, channels.get(f.name)!, f.name === family.name);
      // The relay workers drop their channel cache on the change; give the message a moment.
      await new Promise((r) => setTimeout(r, 1000));
      for (const run of installed) {
        for (const scenario of SCENARIOS) {
          const started = Date.now();
          const outcome = await liveRun({ base, root, user, tmp, channels, upstreams }, run, family, scenario);
          outcomes.push(outcome);
          const seconds = ((Date.now() - started) / 1000).toFixed(0);
          const verdict = outcome.failures.length ? `FAIL ${outcome.failures.join("; ")}` : "ok";
          const dropped = outcome.dropped.length ? ` dropped=${outcome.dropped.join("|")}` : "";
          console.log(
            `  ${run.id} × ${family.name} × ${scenario} (${seconds}s, ${outcome.modelCalls} model call(s), ${outcome.rows} row(s))${dropped}: ${verdict}`,
          );
        }
      }
    }
  } finally {
    await qiao?.stop();
    for (const r of upstreams.values()) await r.close();
    if (!KEEP) rmSync(tmp, { recursive: true, force: true });
    else console.log(`kept ${tmp}`);
  }
  report(outcomes);
  if (outcomes.some((o) => o.failures.length)) process.exitCode = 1;
}

/** The table (agent × family × scenario), then each failure with what the agent printed last. */
function report(outcomes: Outcome[]) {
  const columns = FAMILIES.flatMap((f) => SCENARIOS.map((s) => ({ family: f.name, scenario: s })));
  const header = ["agent", ...columns.map((c) => `${c.family} ${c.scenario}`)];
  const runs = [...new Set(outcomes.map((o) => o.run))];
  const cell = (o: Outcome | undefined) => (!o ? "-" : o.failures.length ? `FAIL: ${o.failures[0]!.slice(0, 60)}` : "ok");
  const rows = runs.map((run) => [
    run,
    ...columns.map((c) => cell(outcomes.find((o) => o.run === run && o.family === c.family && o.scenario === c.scenario))),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${line(header)}\n${line(widths.map((w) => "-".repeat(w)))}\n${rows.map(line).join("\n")}`);
  const dropped = outcomes.filter((o) => o.dropped.length);
  if (dropped.length) {
    console.log("\nx-qiao-dropped:");
    for (const o of dropped) console.log(`  ${o.run} × ${o.family} × ${o.scenario}: ${o.dropped.join(" | ")}`);
  }
  const noted = outcomes.filter((o) => o.notes.length);
  if (noted.length) {
    console.log("\nnotes (bodies a real vendor may refuse; the scripted vendors took them):");
    for (const o of noted) console.log(`  ${o.run} × ${o.family} × ${o.scenario}:\n    ${o.notes.join("\n    ")}`);
  }
  for (const o of outcomes.filter((x) => x.failures.length)) {
    console.log(`\n${o.run} × ${o.family} × ${o.scenario}:`);
    for (const f of o.failures) console.log(`  - ${f}`);
    for (const e of o.exchanges)
      console.log(`    ${e.method} ${e.path} (${e.model ?? "-"}) → ${e.status}${e.dropped ? ` dropped=${e.dropped}` : ""}`);
    console.log(`    agent output (last lines):\n      ${o.output.split("\n").join("\n      ")}`);
  }
}

await main();
