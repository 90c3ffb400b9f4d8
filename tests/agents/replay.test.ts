// Recorded coding-agent sessions (tests/fixtures/agents/<agent>/<scenario>.json, written by
// `npm run record:agents`) replayed through every route: each request sent to the relay exactly as
// the agent sent it (method, path and query, headers, body; the test user's key in the header the
// agent's protocol uses), on a channel of each family: the one that speaks the agent's protocol
// (passed through) and the two others (converted). For each model call the test asserts what an
// agent would need: a 2xx answer that the caller's official SDK parses (a tool call when the
// scenario's first turn asked for one, with a name the agent declared; the text otherwise), an
// upstream body the vendor would take (tests/helpers/vendor-requests.ts; a passed-through body
// equal to the agent's, only the model mapped), and one consume log row at the right quota.
// Side calls the relay answers itself (model lists, token counts) are replayed too and must be 2xx.
//
// How the SDKs are used: each official client is given a `fetch` (Google's reads the global one)
// that sends the recorded request instead of the one the SDK built from the same parameters, after
// checking that the SDK named the same endpoint. The SDK then reads the relay's answer with its
// own machinery (its SSE decoder and stream accumulator: Anthropic's `finalMessage`, OpenAI's
// `finalResponse` / `finalChatCompletion`, Google's chunk iterator), so an answer that would break
// the agent's client breaks here.
//
// The outcome of every cell goes into the grid of docs/agents.md: `npm run agents:grid` writes it
// (QIAO_WRITE_GRID=1); otherwise, when every cell passed, the committed grid must equal this run's.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { outputLimit } from "@/lib/billing/output-limits";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { type ResponsesMock, startResponsesMock } from "@/tests/mocks/openai-responses";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { type VendorApi, vendorRequestProblems } from "@/tests/helpers/vendor-requests";
import { agentsGridSection, type GridCell, gridSectionOf, normalizeGrid, replaceGridSection } from "./grid";

const ROOT = path.join(import.meta.dirname, "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/agents");
const DOC = path.join(ROOT, "docs/agents.md");

type Protocol = "anthropic" | "responses" | "gemini" | "openai";
interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any> | null;
}
interface Fixture {
  agent: string;
  version: string;
  protocol: Protocol;
  scenario: "plain" | "tool";
  requests: RecordedRequest[];
}

const fixtures: Fixture[] = readdirSync(FIXTURES)
  .sort()
  .flatMap((agent) =>
    readdirSync(path.join(FIXTURES, agent))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => JSON.parse(readFileSync(path.join(FIXTURES, agent, f), "utf8")) as Fixture),
  );

// Every mock answers with the same text and the same usage, so one quota fits every cell.
const ANSWER_TEXT = "Hello! How can I help you today?";
const PROMPT_TOKENS = 900;
const COMPLETION_TOKENS = 20;
const MODEL_RATIO = 2;
const COMPLETION_RATIO = 3;
/** ModelRatio × (prompt + completion × CompletionRatio), group ratio 1, no cache. */
const QUOTA = BigInt(MODEL_RATIO * (PROMPT_TOKENS + COMPLETION_TOKENS * COMPLETION_RATIO));

type FamilyName = "OpenAI" | "Claude" | "Gemini";
interface Family {
  name: FamilyName;
  type: number;
  /** The model the channel maps every agent model to. */
  upstreamModel: string;
  /** The agent protocols this family's channel passes through, as the agent sent them. */
  passthrough: Protocol[];
  /**
   * The agent protocol the relay itself speaks with this family: OpenAI's chat completions, the
   * relay's canonical request, sent on after its own rules (the model mapped, the output budget
   * fitted to the model under the member it takes), so checked against the schema rather than for
   * equality.
   */
  native?: Protocol;
}
type Mode = "passthrough" | "native" | "converted";

function modeOf(family: Family, protocol: Protocol): Mode {
  if (family.passthrough.includes(protocol)) return "passthrough";
  return family.native === protocol ? "native" : "converted";
}

/** The output budget of an OpenAI chat body, under either of its names. */
function chatBudget(body: Record<string, any>): number | undefined {
  return body.max_completion_tokens ?? body.max_tokens ?? undefined;
}
const FAMILIES: Family[] = [
  // gpt-5 takes only max_completion_tokens and allows 128 000 of them: what Claude Code asks.
  { name: "OpenAI", type: 1, upstreamModel: "gpt-5", passthrough: ["responses"], native: "openai" },
  // 64 000 output tokens at most: Claude Code's 128 000 must be clamped when converted.
  { name: "Claude", type: 14, upstreamModel: "claude-sonnet-4-5", passthrough: ["anthropic"] },
  { name: "Gemini", type: 24, upstreamModel: "gemini-2.5-pro", passthrough: ["gemini"] },
];

/** The model a recorded request names: in its body, or in Gemini's path. */
function requestedModel(r: RecordedRequest): string | null {
  const inPath = /\/models\/([^/:]+):/.exec(r.path);
  if (inPath) return decodeURIComponent(inPath[1]!);
  return typeof r.body?.model === "string" ? r.body.model : null;
}

/** Model calls go upstream and are billed; everything else (lists, token counts) the relay answers itself. */
function isModelCall(r: RecordedRequest): boolean {
  if (r.method !== "POST") return false;
  const p = r.path.split("?")[0]!;
  return (
    p === "/v1/messages" ||
    p === "/v1/responses" ||
    p === "/v1/chat/completions" ||
    /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.test(p)
  );
}

/** The tool names a recorded request declares, in its protocol (Responses namespaces opened). */
function declaredToolNames(protocol: Protocol, body: Record<string, any>): string[] {
  const list = (x: unknown): Record<string, any>[] => (Array.isArray(x) ? x : []);
  switch (protocol) {
    case "anthropic":
      return list(body.tools).map((t) => t.name);
    case "openai":
      return list(body.tools).map((t) => t.function?.name ?? t.custom?.name);
    case "gemini":
      return list(body.tools).flatMap((t) => list(t.functionDeclarations).map((d) => d.name));
    case "responses": {
      const open = (tools: Record<string, any>[]): string[] =>
        tools.flatMap((t) => (t.type === "namespace" ? [t.name, ...open(list(t.tools))] : [t.name]));
      const extra = list(body.input).filter((i) => i.type === "additional_tools");
      return open([...list(body.tools), ...extra.flatMap((i) => list(i.tools))]).filter((n) => typeof n === "string");
    }
  }
}

/** Whether an upstream body declares a tool the mock can call (its own rule, per vendor API). */
function upstreamDeclaresTool(api: VendorApi, body: Record<string, any>): boolean {
  const list = (x: unknown): Record<string, any>[] => (Array.isArray(x) ? x : []);
  switch (api) {
    case "openai-chat":
      return list(body.tools).some((t) => t.type === "function");
    case "anthropic":
      return list(body.tools).some((t) => t.type === undefined || t.type === "custom");
    case "gemini":
      return list(body.tools).some((t) => list(t.functionDeclarations).length > 0);
    case "openai-responses":
      return declaredToolNames("responses", body).length > 0;
  }
}

/** Whether an agent's request asks for structured output (a JSON schema the answer must follow). */
function asksForSchema(protocol: Protocol, body: Record<string, any>): boolean {
  switch (protocol) {
    case "anthropic":
      return body.output_config?.format?.type === "json_schema";
    case "openai":
      return body.response_format?.type === "json_schema";
    case "responses":
      return body.text?.format?.type === "json_schema";
    case "gemini":
      return body.generationConfig?.responseJsonSchema !== undefined || body.generationConfig?.responseSchema !== undefined;
  }
}

/** Whether an upstream body carries a JSON schema for the answer, in its vendor's form. */
function carriesSchema(api: VendorApi, body: Record<string, any>): boolean {
  switch (api) {
    case "anthropic":
      return body.output_config?.format?.type === "json_schema";
    case "openai-chat":
      return body.response_format?.type === "json_schema";
    case "openai-responses":
      return body.text?.format?.type === "json_schema";
    case "gemini":
      return body.generationConfig?.responseJsonSchema !== undefined || body.generationConfig?.responseSchema !== undefined;
  }
}

/** The key in the header each protocol's clients send it in. */
function authHeader(protocol: Protocol, key: string): Record<string, string> {
  if (protocol === "anthropic") return { "x-api-key": key };
  if (protocol === "gemini") return { "x-goog-api-key": key };
  return { authorization: `Bearer ${key}` };
}

/** What the caller's SDK made of an answer: the text and the tool calls it shows the agent. */
interface Parsed {
  text: string;
  toolCalls: string[];
}

/** What the relay answered a replayed call, beside what the SDK made of it. */
interface Sent {
  status: number;
  errorBody: string;
}

describe("recorded agent sessions on every channel family", () => {
  let relay: RelayServer;
  let chat: OpenAIMock;
  let responses: ResponsesMock;
  let openaiFront: http.Server;
  let openaiUrl: string;
  let claude: AnthropicMock;
  let google: GoogleMock;
  const cells = new Map<string, GridCell>();
  const failures: string[] = [];

  beforeAll(async () => {
    chat = await startOpenAIMock({ apiKey: "sk-upstream-key" });
    responses = await startResponsesMock({ apiKey: "sk-upstream-key" });
    claude = await startAnthropicMock({ apiKey: "sk-ant-replay" });
    google = await startGoogleMock({ apiKey: "AIza-replay" });
    // One OpenAI base URL serves both of OpenAI's APIs, as api.openai.com does: a front on loopback
    // hands /v1/responses to the Responses mock and the rest to the chat completions one.
    openaiFront = http.createServer((req, res) => {
      const target = new URL((req.url ?? "").startsWith("/v1/responses") ? responses.url : chat.url);
      const up = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => openaiFront.listen(0, "127.0.0.1", r));
    openaiUrl = `http://127.0.0.1:${(openaiFront.address() as AddressInfo).port}`;
    relay = await startRelay("node");
    await updateOption("RetryTimes", "0");
    const models = new Set(fixtures.flatMap((f) => f.requests.filter(isModelCall).map((r) => requestedModel(r)!)));
    const priced = [...models, ...FAMILIES.map((f) => f.upstreamModel)];
    await updateOption("ModelRatio", JSON.stringify(Object.fromEntries(priced.map((m) => [m, MODEL_RATIO]))));
    await updateOption("CompletionRatio", JSON.stringify(Object.fromEntries(priced.map((m) => [m, COMPLETION_RATIO]))));
  });

  afterAll(async () => {
    await relay?.close();
    await new Promise<void>((r) => (openaiFront ? openaiFront.close(() => r()) : r()));
    await Promise.all([chat?.close(), responses?.close(), claude?.close(), google?.close()]);
  });

  /** Points every mock at the scenario's answer: a call of the first declared tool, or text. */
  function script(callFirstTool: boolean) {
    const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS };
    chat.setBehaviour({ callFirstTool, usage: { ...usage, prompt_tokens_details: { cached_tokens: 0 } } });
    responses.setBehaviour({
      callFirstTool,
      usage: {
        input_tokens: PROMPT_TOKENS,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: COMPLETION_TOKENS,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS,
      },
    });
    claude.setBehaviour({
      callFirstTool,
      usage: { input_tokens: PROMPT_TOKENS, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: COMPLETION_TOKENS },
    });
    google.setScript({ callFirstTool, usage: { promptTokenCount: PROMPT_TOKENS, candidatesTokenCount: COMPLETION_TOKENS } });
  }

  /** Upstream requests so far, for the family and the API a call of `protocol` reaches. */
  function upstream(family: Family, protocol: Protocol): { api: VendorApi; bodies: () => Record<string, any>[]; path: () => string[] } {
    if (family.name === "Claude")
      return { api: "anthropic", bodies: () => claude.requests.map((r) => r.json), path: () => claude.requests.map((r) => r.path) };
    if (family.name === "Gemini")
      return {
        api: "gemini",
        bodies: () => google.requests.map((r) => r.json as Record<string, any>),
        path: () => google.requests.map((r) => r.path),
      };
    if (protocol === "responses")
      return {
        api: "openai-responses",
        bodies: () => responses.requests.map((r) => r.json),
        path: () => responses.requests.map((r) => r.path),
      };
    return {
      api: "openai-chat",
      bodies: () => chat.requests.map((r) => r.json as Record<string, any>),
      path: () => chat.requests.map((r) => r.path),
    };
  }

  /** A `fetch` that sends the recorded request to the relay when the SDK calls the same endpoint. */
  function replayFetch(recorded: RecordedRequest, protocol: Protocol, key: string, sent: Sent): typeof fetch {
    const original = globalThis.fetch;
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      if (url.origin !== relay.url) return original(input, init);
      // The same endpoint; the query is the recording's (this SDK release marks its beta surface with
      // a header where Claude Code's adds `?beta=true`).
      expect(url.pathname, "the SDK calls the endpoint the agent called").toBe(recorded.path.split("?")[0]);
      const res = await original(`${relay.url}${recorded.path}`, {
        method: recorded.method,
        headers: { ...recorded.headers, ...authHeader(protocol, key) },
        body: recorded.body === null ? undefined : JSON.stringify(recorded.body),
        signal: init?.signal ?? null,
      });
      sent.status = res.status;
      if (!res.ok) sent.errorBody = await res.clone().text();
      return res;
    }) as typeof fetch;
  }

  /** Sends a recorded model call through the caller's SDK; what the SDK parsed from the answer. */
  async function callThroughSdk(protocol: Protocol, recorded: RecordedRequest, key: string, sent: Sent): Promise<Parsed> {
    const fetch = replayFetch(recorded, protocol, key, sent);
    const body = recorded.body as Record<string, any>;
    const streamed = body.stream === true || recorded.path.includes(":streamGenerateContent");
    switch (protocol) {
      case "anthropic": {
        const client = new Anthropic({ apiKey: key, baseURL: relay.url, maxRetries: 0, fetch });
        // `?beta=true` is the path of the SDK's beta surface, which Claude Code uses.
        const beta = recorded.path.includes("beta=true");
        const message = (
          streamed
            ? await (beta ? client.beta.messages.stream(body as never) : client.messages.stream(body as never)).finalMessage()
            : await (beta ? client.beta.messages.create(body as never) : client.messages.create(body as never))
        ) as Anthropic.Message;
        return {
          text: message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
          toolCalls: message.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : [])),
        };
      }
      case "responses": {
        const client = new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0, fetch });
        const response = streamed
          ? await client.responses.stream(body as never).finalResponse()
          : await client.responses.create({ ...body, stream: false } as never);
        const out = (response as OpenAI.Responses.Response).output;
        return {
          text: (response as OpenAI.Responses.Response).output_text,
          toolCalls: out.flatMap((o) => (o.type === "function_call" || o.type === "custom_tool_call" ? [o.name] : [])),
        };
      }
      case "openai": {
        const client = new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0, fetch });
        const completion = streamed
          ? await client.chat.completions.stream(body as never).finalChatCompletion()
          : await client.chat.completions.create({ ...body, stream: false } as never);
        const message = (completion as OpenAI.ChatCompletion).choices[0]!.message;
        return {
          text: message.content ?? "",
          toolCalls: (message.tool_calls ?? []).map((c) => (c.type === "function" ? c.function.name : c.custom.name)),
        };
      }
      case "gemini": {
        // Google's client takes no fetch: it calls the global one, replaced for this call only
        // (requests to anything but the relay go to the real fetch).
        const original = globalThis.fetch;
        globalThis.fetch = fetch;
        try {
          const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: relay.url } });
          const params = { model: requestedModel(recorded)!, contents: body.contents };
          const chunks = streamed ? [] : [await ai.models.generateContent(params)];
          if (streamed) for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
          const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
          return {
            text: parts.flatMap((p) => (typeof p.text === "string" && !p.thought ? [p.text] : [])).join(""),
            toolCalls: parts.flatMap((p) => (p.functionCall?.name ? [p.functionCall.name] : [])),
          };
        } finally {
          globalThis.fetch = original;
        }
      }
    }
  }

  /** A side call, sent as recorded with plain fetch. */
  async function sideCall(protocol: Protocol, recorded: RecordedRequest, key: string): Promise<Response> {
    return fetch(`${relay.url}${recorded.path}`, {
      method: recorded.method,
      headers: { ...recorded.headers, ...authHeader(protocol, key) },
      body: recorded.body === null ? undefined : JSON.stringify(recorded.body),
    });
  }

  async function replay(family: Family, fixture: Fixture) {
    const user = await seedUser();
    const mode = modeOf(family, fixture.protocol);
    const up = upstream(family, fixture.protocol);
    const billed: string[] = [];
    let toolTurnDone = false;
    for (const [i, recorded] of fixture.requests.entries()) {
      const where = `${fixture.agent} ${fixture.scenario} request ${i} (${recorded.method} ${recorded.path})`;
      if (!isModelCall(recorded)) {
        const res = await sideCall(fixture.protocol, recorded, user.key);
        expect(res.status, `${where}: ${await res.clone().text()}`).toBeLessThan(300);
        await res.arrayBuffer();
        continue;
      }
      const agentModel = requestedModel(recorded)!;
      const body = recorded.body as Record<string, any>;
      const askTool = fixture.scenario === "tool" && !toolTurnDone && declaredToolNames(fixture.protocol, body).length > 0;
      if (askTool) toolTurnDone = true;
      script(askTool);
      const before = up.bodies().length;
      const sent: Sent = { status: 0, errorBody: "" };
      let parsed: Parsed;
      try {
        parsed = await callThroughSdk(fixture.protocol, recorded, user.key, sent);
      } catch (err) {
        // The SDK wraps what its fetch threw (a failed check included) as a connection error: show the cause.
        const cause = err instanceof Error && err.cause ? ` (${String(err.cause)})` : "";
        throw new Error(`${where}: ${sent.status} ${sent.errorBody || `${String(err)}${cause}`}`);
      }
      expect(sent.status, where).toBe(200);

      const bodies = up.bodies().slice(before);
      expect(bodies, `${where}: one upstream request`).toHaveLength(1);
      const upstreamBody = bodies[0]!;
      if (mode === "passthrough") {
        // The agent's own body, only the model the channel's: in the body, or in Gemini's path.
        if (fixture.protocol === "gemini") {
          expect(up.path().at(-1), where).toContain(`/models/${family.upstreamModel}:`);
          expect(upstreamBody, where).toEqual(body);
        } else {
          expect(upstreamBody, where).toEqual({ ...body, model: family.upstreamModel });
        }
        if (up.api === "openai-responses") expect(vendorRequestProblems(up.api, upstreamBody, family.upstreamModel), where).toEqual([]);
      } else {
        expect(vendorRequestProblems(up.api, upstreamBody, family.upstreamModel), where).toEqual([]);
      }
      // A schema the answer must follow is a feature every vendor has: converting keeps it.
      if (asksForSchema(fixture.protocol, body))
        expect(carriesSchema(up.api, upstreamBody), `${where}: the agent's JSON schema reaches the vendor`).toBe(true);
      if (mode === "native") {
        // Nothing of the agent's lost or added but the model and the output budget, which is the
        // agent's as far as the model allows.
        const { max_tokens: _a, max_completion_tokens: _b, ...sentRest } = upstreamBody;
        const { max_tokens: _c, max_completion_tokens: _d, ...agentRest } = body;
        expect(sentRest, where).toEqual({ ...agentRest, model: family.upstreamModel });
        const asked = chatBudget(body);
        const limit = outputLimit(family.upstreamModel) ?? Number.POSITIVE_INFINITY;
        expect(chatBudget(upstreamBody), where).toBe(asked === undefined ? undefined : Math.min(asked, limit));
      }

      // What the agent is shown: the tool call its turn asked for, under a name it declared, or the text.
      if (askTool) {
        expect(upstreamDeclaresTool(up.api, upstreamBody), `${where}: the agent's tools reach the vendor`).toBe(true);
        expect(parsed.toolCalls.length, `${where}: a tool call`).toBeGreaterThan(0);
        const declared = declaredToolNames(fixture.protocol, body);
        for (const name of parsed.toolCalls) expect(declared, `${where}: the tool call's name`).toContain(name);
      } else {
        expect(parsed.toolCalls, where).toEqual([]);
        expect(parsed.text, where).toBe(ANSWER_TEXT);
      }
      billed.push(agentModel);
    }

    // Billed once per model call, at the quota of the vendor's usage, under the agent's model name.
    await settleAll();
    const logs = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });
    expect(logs.map((l) => [l.model_name, l.quota])).toEqual(billed.map((m) => [m, QUOTA]));
    expect(await user.quota()).toBe(10_000_000n - QUOTA * BigInt(billed.length));
  }

  for (const family of FAMILIES) {
    describe(`${family.name} channel (type ${family.type}, models mapped to ${family.upstreamModel})`, () => {
      beforeAll(async () => {
        await clearRelayData();
        const models = [...new Set(fixtures.flatMap((f) => f.requests.filter(isModelCall).map((r) => requestedModel(r)!)))];
        const base_url = family.name === "OpenAI" ? openaiUrl : family.name === "Claude" ? claude.url : google.url;
        const key = family.name === "OpenAI" ? "sk-upstream-key" : family.name === "Claude" ? "sk-ant-replay" : "AIza-replay";
        await seedChannel({
          type: family.type,
          base_url,
          key,
          models: models.join(","),
          model_mapping: JSON.stringify(Object.fromEntries(models.map((m) => [m, family.upstreamModel]))),
        });
      });

      for (const fixture of fixtures) {
        const mode = modeOf(family, fixture.protocol);
        const name = `${fixture.agent} ${fixture.scenario} (${mode})`;
        it(name, async () => {
          const cellKey = `${fixture.agent}\u0000${family.name}`;
          const cell = cells.get(cellKey) ?? {
            agent: fixture.agent,
            version: fixture.version,
            family: family.name,
            mode,
            tests: [],
            passed: true,
          };
          cells.set(cellKey, cell);
          cell.tests.push(`${family.name} channel › ${name}`);
          try {
            await replay(family, fixture);
          } catch (err) {
            cell.passed = false;
            failures.push(`${family.name} › ${name}: ${String(err instanceof Error ? err.message : err).slice(0, 600)}`);
            throw err;
          }
        });
      }
    });
  }

  it("the grid in docs/agents.md is this run's", () => {
    const section = agentsGridSection([...cells.values()], ["OpenAI", "Claude", "Gemini"]);
    const current = readFileSync(DOC, "utf8");
    if (failures.length > 0) console.log(`Cells that failed:\n${failures.join("\n")}`);
    if (process.env.QIAO_WRITE_GRID === "1") {
      writeFileSync(DOC, replaceGridSection(current, section));
      return;
    }
    // A failed cell already fails its own test; the committed grid is held to a fully green run.
    if (failures.length === 0) {
      const committed = gridSectionOf(current);
      expect(committed && normalizeGrid(committed), "docs/agents.md's grid is stale: run `npm run agents:grid`").toBe(
        normalizeGrid(section),
      );
    }
  });
});
