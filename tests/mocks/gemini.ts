// A mock Google on 127.0.0.1 for integration tests, answering in Google's real shapes (the
// fixtures in lib/relay/providers/{gemini,palm,vertex}/__fixtures__):
// - Gemini API: POST /{v1beta|v1}/models/{model}:generateContent | :streamGenerateContent?alt=sse |
//   :batchEmbedContents, key in `x-goog-api-key` (a wrong one gets Google's API_KEY_INVALID 400);
// - Vertex AI: POST /v1/projects/{p}/locations/{r}/publishers/google/models/{model}:… (`:predict`
//   for text embeddings),
//   …/publishers/anthropic/models/{model}:rawPredict | :streamRawPredict (Anthropic's fixtures) and
//   /v1beta1/projects/{p}/locations/{r}/endpoints/openapi/chat/completions, with
//   `Authorization: Bearer <a token this mock issued>` (401 UNAUTHENTICATED otherwise);
// - the OAuth token endpoint POST /token: verifies the RS256 JWT assertion with the service
//   account's public key (issuer, audience, scope, expiry) before issuing a token;
// - PaLM: POST /v1beta2/models/{model}:generateMessage.
// Chat answers: the tool-call fixture when the request declares tools, the text one otherwise;
// `callFunctions` scripts the calls instead (a test naming the tools its request declared).
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { importSPKI, jwtVerify } from "jose";

const GEMINI_FIXTURES = path.join(import.meta.dirname, "../../lib/relay/providers/gemini/__fixtures__");
const ANTHROPIC_FIXTURES = path.join(import.meta.dirname, "../../lib/relay/providers/anthropic/__fixtures__");
const PALM_FIXTURES = path.join(import.meta.dirname, "../../lib/relay/providers/palm/__fixtures__");
const VERTEX_FIXTURES = path.join(import.meta.dirname, "../../lib/relay/providers/vertex/__fixtures__");
const geminiFixture = (name: string) => readFileSync(path.join(GEMINI_FIXTURES, name), "utf8");
const palmFixture = (name: string) => readFileSync(path.join(PALM_FIXTURES, name), "utf8");
const vertexFixture = (name: string) => readFileSync(path.join(VERTEX_FIXTURES, name), "utf8");
const anthropicFixture = (name: string) => readFileSync(path.join(ANTHROPIC_FIXTURES, name), "utf8");

export interface GoogleRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface GoogleFailure {
  status: number;
  /** A fixture name (gemini/__fixtures__) or a raw body. */
  fixture?: string;
  body?: string;
  /** How many requests fail (default 1). */
  times?: number;
}

export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
}

/** A generateContent answer calling `calls`, as Gemini gives it (one candidate, STOP, its usage). */
function functionCallAnswer(calls: GeminiFunctionCall[]): string {
  return JSON.stringify({
    candidates: [
      {
        content: { parts: calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })), role: "model" },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 57, candidatesTokenCount: 24, totalTokenCount: 81 },
    modelVersion: "gemini-2.0-flash",
    responseId: "Zlgjz6DXJOKimecP1ov4oQ4",
  });
}

/**
 * Scripted Gemini API chat answers instead of the fixtures: a text answer, or a call of the first
 * function the request declares (args `{}`; text when it declares none), with the given usage.
 * Replayed agent sessions use it, as the tool names are the agent's.
 */
export interface GeminiScript {
  callFirstTool: boolean;
  usage: { promptTokenCount: number; candidatesTokenCount: number };
}

export const GEMINI_SCRIPT_TEXT = "Hello! How can I help you today?";

/** The first function declaration of a Gemini request's tools, or null. */
function firstDeclaredFunction(json: Record<string, unknown>): string | null {
  const tools = Array.isArray(json.tools) ? (json.tools as Array<Record<string, unknown>>) : [];
  for (const tool of tools) {
    const declarations = Array.isArray(tool?.functionDeclarations) ? (tool.functionDeclarations as Array<{ name?: unknown }>) : [];
    const named = declarations.find((d) => typeof d?.name === "string");
    if (named) return named.name as string;
  }
  return null;
}

/** A GenerateContentResponse (one for a whole answer, the last of a stream) for a script. */
function scriptedAnswer(json: Record<string, unknown>, model: string, script: GeminiScript): Record<string, unknown> {
  const name = script.callFirstTool ? firstDeclaredFunction(json) : null;
  const parts = name ? [{ functionCall: { name, args: {} } }] : [{ text: GEMINI_SCRIPT_TEXT }];
  const { promptTokenCount, candidatesTokenCount } = script.usage;
  return {
    candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount },
    modelVersion: model,
    responseId: "ScriptedReplay000001",
  };
}

export interface GoogleMock {
  url: string;
  requests: GoogleRequest[];
  /** Token endpoint calls (each one a verified or refused assertion). */
  tokenCalls: number;
  /** A service-account JSON key whose token_uri is this mock's, signed with the key it trusts. */
  serviceAccount(o?: { project?: string; untrusted?: boolean }): string;
  failNext(f: GoogleFailure): void;
  /** Answer requests that declare tools with these function calls (until reset). */
  callFunctions(calls: GeminiFunctionCall[]): void;
  /** Answer Gemini API chat calls from a script (null: from the fixtures again). */
  setScript(script: GeminiScript | null): void;
  reset(): void;
  close(): Promise<void>;
}

const CLIENT_EMAIL = "relay@qiao-test.iam.gserviceaccount.com";
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

function pem(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKey, publicKey };
}

function googleError(code: number, status: string, message: string): string {
  return JSON.stringify({ error: { code, message, status } });
}

export async function startGoogleMock(o: { apiKey?: string } = {}): Promise<GoogleMock> {
  const apiKey = o.apiKey ?? "AIza-test-key";
  const trusted = pem();
  const stranger = pem();
  const publicKey = await importSPKI(trusted.publicKey, "RS256");
  const issued = new Set<string>();
  let failure: GoogleFailure | null = null;
  let scriptedCalls: GeminiFunctionCall[] | null = null;
  let script: GeminiScript | null = null;
  let tokenSeq = 0;

  const send = (res: http.ServerResponse, status: number, body: string, type = "application/json; charset=UTF-8") => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };

  const streamOut = async (res: http.ServerResponse, sse: string) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // Split mid-event, as a network would, to exercise the relay's framing.
    for (let i = 0; i < sse.length; i += 97) {
      res.write(sse.slice(i, i + 97));
      await new Promise((r) => setTimeout(r, 2));
    }
    res.end();
  };

  const chat = (res: http.ServerResponse, method: string, json: Record<string, unknown>, model = "") => {
    if (script && (method === "streamGenerateContent" || method === "generateContent")) {
      const answer = JSON.stringify(scriptedAnswer(json, model, script));
      return method === "generateContent" ? send(res, 200, answer) : streamOut(res, `data: ${answer}\r\n\r\n`);
    }
    const tools = Array.isArray(json.tools) && json.tools.length > 0;
    if (tools && scriptedCalls && method === "streamGenerateContent")
      return streamOut(res, `data: ${functionCallAnswer(scriptedCalls)}\r\n\r\n`);
    if (tools && scriptedCalls && method === "generateContent") return send(res, 200, functionCallAnswer(scriptedCalls));
    if (method === "streamGenerateContent") return streamOut(res, geminiFixture(tools ? "stream-tool-call.sse" : "stream-text.sse"));
    if (method === "generateContent")
      return send(res, 200, geminiFixture(tools ? "generate-content-tool-call.json" : "generate-content.json"));
    if (method === "batchEmbedContents") {
      const n = Array.isArray(json.requests) ? json.requests.length : 0;
      const values = (JSON.parse(geminiFixture("batch-embed.json")) as { embeddings: unknown[] }).embeddings;
      return send(res, 200, JSON.stringify({ embeddings: Array.from({ length: n }, (_, i) => values[i % values.length]) }));
    }
    return send(res, 404, googleError(404, "NOT_FOUND", `Method ${method} not found`));
  };

  const token = async (res: http.ServerResponse, body: string) => {
    mock.tokenCalls++;
    const form = new URLSearchParams(body);
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return send(res, 400, JSON.stringify({ error: "unsupported_grant_type", error_description: "Invalid grant_type" }));
    }
    try {
      const { payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
        algorithms: ["RS256"],
        issuer: CLIENT_EMAIL,
        audience: `${mock.url}/token`,
        requiredClaims: ["iat", "exp"],
      });
      if (payload.scope !== SCOPE) throw new Error("scope");
    } catch {
      return send(res, 400, JSON.stringify({ error: "invalid_grant", error_description: "Invalid JWT Signature." }));
    }
    const t = `ya29.mock-${++tokenSeq}`;
    issued.add(t);
    return send(res, 200, JSON.stringify({ access_token: t, expires_in: 3599, token_type: "Bearer" }));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://mock");
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // form bodies (the token endpoint)
      }
      if (url.pathname === "/token") return void token(res, body);
      mock.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers, body, json });
      if (failure) {
        const f = failure;
        f.times = (f.times ?? 1) - 1;
        if (f.times <= 0) failure = null;
        return send(res, f.status, f.fixture ? geminiFixture(f.fixture) : (f.body ?? ""));
      }
      const obj = (json && typeof json === "object" ? json : {}) as Record<string, unknown>;

      const vertex = /^\/v1(?:beta1)?\/projects\/[^/]+\/locations\/[^/]+\//.test(url.pathname);
      if (vertex) {
        const auth = String(req.headers.authorization ?? "");
        if (!issued.has(auth.replace(/^Bearer /, ""))) {
          return send(res, 401, googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."));
        }
        const google = /\/publishers\/google\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
        if (google?.[2] === "predict") {
          // Text embeddings: one recorded prediction per instance.
          const n = Array.isArray(obj.instances) ? obj.instances.length : 0;
          const recorded = JSON.parse(vertexFixture("predict-embeddings.json")) as { predictions: unknown[]; metadata: unknown };
          const predictions = Array.from({ length: n }, (_, i) => recorded.predictions[i % recorded.predictions.length]);
          return send(res, 200, JSON.stringify({ predictions, metadata: recorded.metadata }));
        }
        if (google) return void chat(res, google[2]!, obj);
        const claude = /\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(url.pathname);
        if (claude) {
          // Vertex's Claude takes the Messages body with its own anthropic_version and no model.
          if (obj.anthropic_version !== "vertex-2023-10-16" || "model" in obj) {
            const error = {
              type: "error",
              error: { type: "invalid_request_error", message: "anthropic_version: vertex-2023-10-16 required, model not allowed" },
            };
            return send(res, 400, JSON.stringify(error));
          }
          if (claude[2] === "streamRawPredict") return void streamOut(res, anthropicFixture("stream-text.sse"));
          return send(res, 200, anthropicFixture("message-text.json"));
        }
        if (url.pathname.endsWith("/endpoints/openapi/chat/completions")) {
          const answer = {
            id: "chatcmpl-llama",
            object: "chat.completion",
            created: 1700000000,
            model: obj.model,
            choices: [{ index: 0, message: { role: "assistant", content: "Hello from Llama." }, finish_reason: "stop" }],
            usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
          };
          return send(res, 200, JSON.stringify(answer));
        }
        return send(res, 404, googleError(404, "NOT_FOUND", "Publisher model not found."));
      }

      if (req.headers["x-goog-api-key"] !== apiKey) return send(res, 400, geminiFixture("error-api-key.json"));
      const palm = /^\/v1beta2\/models\/([^/:]+):generateMessage$/.exec(url.pathname);
      if (palm) {
        const filtered = JSON.stringify(obj).includes("forbidden topic");
        return send(res, 200, palmFixture(filtered ? "generate-message-filtered.json" : "generate-message.json"));
      }
      const gemini = /^\/(?:v1beta|v1)\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
      if (gemini) return void chat(res, gemini[2]!, obj, gemini[1]);
      return send(res, 404, googleError(404, "NOT_FOUND", "Not found"));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;

  const mock: GoogleMock = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    tokenCalls: 0,
    serviceAccount(so = {}) {
      return JSON.stringify({
        type: "service_account",
        project_id: so.project ?? "qiao-test",
        private_key_id: "0123456789abcdef",
        private_key: (so.untrusted ? stranger : trusted).privateKey,
        client_email: CLIENT_EMAIL,
        client_id: "100000000000000000000",
        token_uri: `${mock.url}/token`,
      });
    },
    failNext(f) {
      failure = { ...f };
    },
    callFunctions(calls) {
      scriptedCalls = calls;
    },
    setScript(s) {
      script = s;
    },
    reset() {
      mock.requests.length = 0;
      mock.tokenCalls = 0;
      failure = null;
      scriptedCalls = null;
      script = null;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return mock;
}
