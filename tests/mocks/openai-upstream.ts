// A mock OpenAI-protocol vendor on 127.0.0.1 for integration tests. It speaks OpenAI's real wire
// format (ids, objects, SSE framing, the `choices: []` usage chunk, streamed tool calls, error
// bodies) and the path layouts of every OpenAI-family adapter (Azure deployments, Cloudflare
// accounts and ai/run, Qwen compatible-mode, MiniMax, FastGPT, DeepSeek beta, custom URLs).
//
//   const mock = await startOpenAIMock({ apiKey: "sk-up" });
//   mock.setBehaviour({ failStatus: 429 });            // for every following request
//   fetch(url, { headers: { "x-mock-behaviour": JSON.stringify({ chunkDelayMs: 50 }) } }) // one request
//   mock.requests[0].json; await mock.close();
import { randomBytes } from "node:crypto";
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body as text (latin1 for binary bodies would lose nothing: see `bytes`). */
  body: string;
  bytes: Buffer;
  /** Parsed body when it was JSON. */
  json: unknown;
  /** What the mock decided the request was ("chat", "embeddings", "cf-run"…). */
  kind: string;
}

export interface MockToolCall {
  name: string;
  arguments: string;
}

export interface MockBehaviour {
  /** Answer with this HTTP status and an OpenAI error body. */
  failStatus?: number;
  /** Override parts of the error object. */
  failError?: { message?: string; type?: string; code?: string | null; param?: string | null };
  /** Send this raw body (HTML from a proxy…) instead of the OpenAI error JSON. */
  failBody?: string;
  /** Fail only the next N requests, then behave normally (retry tests). */
  failTimes?: number;
  /** Leave usage out of answers and out of the stream even when include_usage was asked. */
  omitUsage?: boolean;
  /** Report absurd usage (1e12 prompt tokens, negative completion tokens). */
  absurdUsage?: boolean;
  /** Override reported usage fields. */
  usage?: Record<string, unknown>;
  /** Wait this long before sending anything (not even headers). */
  stallMs?: number;
  /** Send the 200 headers, then wait this long before the first byte of the body. */
  stallAfterHeadersMs?: number;
  /** Delay between streamed chunks. */
  chunkDelayMs?: number;
  /** The assistant's reply text. */
  content?: string;
  /** Split the reply into this many content chunks (default: one per word). */
  chunks?: number;
  /** Answer with tool calls instead of text. */
  toolCalls?: MockToolCall[];
  /**
   * Answer with a call of the first function the request declares (arguments `{}`), as a model
   * asked to use its tools would; text when it declares none. Replayed agent sessions use it: the
   * tool names are the agent's, whatever they are.
   */
  callFirstTool?: boolean;
  /** Destroy the socket after this many content chunks (after the role chunk). */
  dropAfterChunks?: number;
  /** Send an OpenAI error event after this many content chunks, then end without [DONE]. */
  errorAfterChunks?: number;
  /** End the stream without `data: [DONE]`. */
  noDone?: boolean;
  /** The reply text is the raw request body. */
  echo?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

export interface OpenAIMockOptions {
  /** Require this key (`Authorization: Bearer` or Azure's `api-key`); 401 otherwise. Unset: no check. */
  apiKey?: string;
  /** Keys answered with 401 (echoing the key in the message, the worst an upstream does); the test may change the set. */
  rejectedKeys?: Set<string>;
  behaviour?: MockBehaviour;
}

export interface OpenAIMock {
  url: string;
  port: number;
  requests: RecordedRequest[];
  setBehaviour(b: MockBehaviour | null): void;
  /** Forget recorded requests and behaviour. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_TEXT = "Hello! How can I help you today?";
const DEFAULT_TRANSCRIPT = "Hello there, general Kenobi.";
const FINGERPRINT = "fp_mock0c0ffee";

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid request.", type: "invalid_request_error", code: null },
  401: {
    message: "Incorrect API key provided: sk-up***. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  403: { message: "Country, region, or territory not supported", type: "request_forbidden", code: "unsupported_country_region_territory" },
  404: {
    message: "The model `unknown` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  },
  429: {
    message:
      "Rate limit reached for gpt-4o in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.",
    type: "requests",
    code: "rate_limit_exceeded",
  },
  500: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", code: null },
  503: { message: "The engine is currently overloaded, please try again later.", type: "server_error", code: null },
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const nowSec = () => Math.floor(Date.now() / 1000);
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function rid(n: number): string {
  const b = randomBytes(n);
  let s = "";
  for (let i = 0; i < n; i++) s += B62[b[i] % 62];
  return s;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A deterministic stand-in for a tokenizer: ~4 characters per token, at least 1. */
function fakeTokens(text: string): number {
  return text === "" ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

function splitReply(text: string, chunks: number | undefined): string[] {
  if (text === "") return [];
  if (chunks && chunks > 0) {
    const size = Math.ceil(text.length / chunks);
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  }
  return text.match(/\s*\S+/g) ?? [text];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, b: MockBehaviour, extra: Record<string, string> = {}) {
  if (b.failBody !== undefined) {
    res.writeHead(status, { "Content-Type": "text/html", ...extra });
    res.end(b.failBody);
    return;
  }
  const base = ERRORS[status] ?? {
    message: `mock failure ${status}`,
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  const headers =
    status === 429 ? { "retry-after": "20", "x-ratelimit-limit-requests": "3", "x-ratelimit-remaining-requests": "0", ...extra } : extra;
  sendJson(
    res,
    status,
    {
      error: {
        message: b.failError?.message ?? base.message,
        type: b.failError?.type ?? base.type,
        param: b.failError?.param ?? null,
        code: b.failError?.code !== undefined ? b.failError.code : base.code,
      },
    },
    headers,
  );
}

function usageObject(prompt: number, completion: number, b: MockBehaviour): Obj {
  const u: Obj = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  if (b.absurdUsage) Object.assign(u, { prompt_tokens: 1e12, completion_tokens: -5, total_tokens: 1e12 - 5 });
  if (b.usage) Object.assign(u, b.usage);
  return u;
}

/** A call of the first function tool a chat request declares, or undefined when it declares none. */
function firstDeclaredTool(req: Obj): MockToolCall[] | undefined {
  const tools = Array.isArray(req.tools) ? req.tools : [];
  for (const tool of tools) {
    if (isObj(tool) && tool.type === "function" && isObj(tool.function) && typeof tool.function.name === "string")
      return [{ name: tool.function.name, arguments: "{}" }];
  }
  return undefined;
}

/** Classify a request by its path (every adapter's layout) and body. */
function route(method: string, path: string, json: unknown): { kind: string; model?: string } {
  if (method === "GET") return { kind: path.endsWith("/models") ? "models" : "unknown" };
  let m = /^\/openai\/deployments\/([^/]+)\/(.+)$/.exec(path);
  if (m) return { kind: kindOfSuffix(m[2], json), model: decodeURIComponent(m[1]) };
  m = /^\/client\/v4\/accounts\/[^/]+\/ai\/run\/(.+)$/.exec(path);
  if (m) return { kind: "cf-run", model: decodeURIComponent(m[1]) };
  if (path.endsWith("/text/chatcompletion_v2")) return { kind: "chat" };
  return { kind: kindOfSuffix(path, json) };
}

function kindOfSuffix(p: string, json: unknown): string {
  const table: Array<[string, string]> = [
    ["chat/completions", "chat"],
    ["completions", "completions"],
    ["embeddings", "embeddings"],
    ["moderations", "moderations"],
    ["images/generations", "images"],
    ["images/edits", "images"],
    ["images/variations", "images"],
    ["audio/speech", "speech"],
    ["audio/transcriptions", "transcriptions"],
    ["audio/translations", "translations"],
    ["rerank", "rerank"],
  ];
  for (const [suffix, kind] of table) if (p.endsWith(suffix)) return kind;
  // custom channels: any URL; guess from the body
  if (isObj(json) && Array.isArray(json.messages)) return "chat";
  if (isObj(json) && json.input !== undefined) return "embeddings";
  return "unknown";
}

export async function startOpenAIMock(options: OpenAIMockOptions = {}): Promise<OpenAIMock> {
  const requests: RecordedRequest[] = [];
  let behaviour: MockBehaviour = { ...(options.behaviour ?? {}) };
  let failuresLeft = behaviour.failTimes;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `mock crashed: ${String(err)}`, type: "server_error", param: null, code: null } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const bytes = await readBody(req);
    const body = bytes.toString("utf8");
    const ct = String(req.headers["content-type"] ?? "");
    let json: unknown;
    if (ct.includes("json") || body.startsWith("{")) {
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
    }
    const { kind, model: pathModel } = route(req.method ?? "GET", url.pathname, json);
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      bytes,
      json,
      kind,
    });

    let b: MockBehaviour = behaviour;
    const override = req.headers["x-mock-behaviour"];
    if (typeof override === "string") b = { ...b, ...(JSON.parse(override) as MockBehaviour) };
    const extra = b.headers ?? {};

    if (b.stallMs) await sleep(b.stallMs);
    if (options.apiKey !== undefined || options.rejectedKeys !== undefined) {
      const auth = String(req.headers.authorization ?? "");
      const key = auth.startsWith("Bearer ") ? auth.slice(7) : String(req.headers["api-key"] ?? "");
      if (options.apiKey !== undefined && key !== options.apiKey) return sendError(res, 401, {}, extra);
      // OpenAI's answer to a wrong key quotes part of the key it was sent.
      if (options.rejectedKeys?.has(key))
        return sendError(
          res,
          401,
          {
            failError: {
              message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            },
          },
          extra,
        );
    }
    if (url.pathname.startsWith("/openai/deployments/") && !url.searchParams.get("api-version")) {
      return sendJson(res, 404, { error: { code: "404", message: "Resource not found" } });
    }
    if (b.failStatus && (failuresLeft === undefined || failuresLeft > 0)) {
      if (failuresLeft !== undefined) failuresLeft--;
      return sendError(res, b.failStatus, b, extra);
    }

    const model = pathModel ?? (isObj(json) && typeof json.model === "string" ? json.model : "gpt-4o-mini");
    switch (kind) {
      case "chat":
      case "completions":
        return textGeneration(res, kind, model, json, body, b, extra);
      case "embeddings":
        return embeddings(res, model, json, b, extra);
      case "moderations":
        return moderations(res, model, json, extra);
      case "images":
        return images(res, model, json, extra);
      case "speech":
        return speech(res, json, extra);
      case "transcriptions":
      case "translations":
        return transcription(res, kind, bytes, ct, b, extra);
      case "rerank":
        return rerank(res, model, json, b, extra);
      case "models":
        return sendJson(
          res,
          200,
          {
            object: "list",
            data: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small", "whisper-1", "tts-1", "dall-e-3"].map((id) => ({
              id,
              object: "model",
              created: 1715367049,
              owned_by: "system",
            })),
          },
          extra,
        );
      case "cf-run":
        return cloudflareRun(res, model, json, bytes, ct, b, extra);
      default:
        return sendJson(res, 404, {
          error: { message: `Invalid URL (${req.method} ${url.pathname})`, type: "invalid_request_error", param: null, code: null },
        });
    }
  }

  async function textGeneration(
    res: ServerResponse,
    kind: "chat" | "completions",
    model: string,
    json: unknown,
    raw: string,
    b: MockBehaviour,
    extra: Record<string, string>,
  ) {
    const req = isObj(json) ? json : {};
    const promptText = kind === "chat" ? JSON.stringify(req.messages ?? []) : JSON.stringify(req.prompt ?? "");
    const promptTokens = fakeTokens(promptText);
    const text = b.echo ? raw : (b.content ?? DEFAULT_TEXT);
    const tools = kind === "chat" ? (b.toolCalls ?? (b.callFirstTool ? firstDeclaredTool(req) : undefined)) : undefined;
    const completionTokens = tools ? fakeTokens(tools.map((t) => t.name + t.arguments).join("")) : fakeTokens(text);
    const id = kind === "chat" ? `chatcmpl-${rid(29)}` : `cmpl-${rid(29)}`;
    const created = nowSec();

    if (req.stream !== true) {
      const usage = b.omitUsage ? undefined : usageObject(promptTokens, completionTokens, b);
      if (kind === "completions") {
        return sendJson(
          res,
          200,
          { id, object: "text_completion", created, model, choices: [{ text, index: 0, logprobs: null, finish_reason: "stop" }], usage },
          extra,
        );
      }
      const message: Obj = tools
        ? {
            role: "assistant",
            content: null,
            tool_calls: tools.map((t) => ({ id: `call_${rid(24)}`, type: "function", function: { name: t.name, arguments: t.arguments } })),
            refusal: null,
            annotations: [],
          }
        : { role: "assistant", content: text, refusal: null, annotations: [] };
      return sendJson(
        res,
        200,
        {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: tools ? "tool_calls" : "stop" }],
          usage,
          service_tier: "default",
          system_fingerprint: FINGERPRINT,
        },
        extra,
      );
    }

    const includeUsage = isObj(req.stream_options) && req.stream_options.include_usage === true;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
      ...extra,
    });
    res.flushHeaders();
    if (b.stallAfterHeadersMs) await sleep(b.stallAfterHeadersMs);
    const write = (payload: Obj | string) => res.write(`data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`);
    const chunk = (choices: Obj[]): Obj => {
      const c: Obj =
        kind === "chat"
          ? { id, object: "chat.completion.chunk", created, model, service_tier: "default", system_fingerprint: FINGERPRINT, choices }
          : { id, object: "text_completion", created, choices, model };
      if (includeUsage) c.usage = null;
      return c;
    };
    const choice = (delta: Obj, finish: string | null): Obj =>
      kind === "chat"
        ? { index: 0, delta, logprobs: null, finish_reason: finish }
        : { text: typeof delta.content === "string" ? delta.content : "", index: 0, logprobs: null, finish_reason: finish };

    // The pieces to stream after the role chunk.
    const pieces: Obj[] = [];
    if (tools) {
      tools.forEach((t, index) => {
        pieces.push({ tool_calls: [{ index, id: `call_${rid(24)}`, type: "function", function: { name: t.name, arguments: "" } }] });
        for (const frag of t.arguments.match(/[\s\S]{1,4}/g) ?? []) pieces.push({ tool_calls: [{ index, function: { arguments: frag } }] });
      });
    } else {
      for (const piece of splitReply(text, b.chunks)) pieces.push({ content: piece });
    }

    if (kind === "chat") write(chunk([choice({ role: "assistant", content: tools ? null : "", refusal: null }, null)]));
    let sent = 0;
    for (const piece of pieces) {
      if (b.dropAfterChunks !== undefined && sent >= b.dropAfterChunks) {
        // Flush what was written, then close the TCP connection without ending the chunked body.
        res.socket?.destroySoon();
        return;
      }
      if (b.errorAfterChunks !== undefined && sent >= b.errorAfterChunks) {
        write({
          error: {
            message: "The server had an error while processing your request. Sorry about that!",
            type: "server_error",
            param: null,
            code: null,
          },
        });
        res.end();
        return;
      }
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      write(chunk([choice(piece, null)]));
      sent++;
    }
    write(chunk([choice({}, tools ? "tool_calls" : "stop")]));
    if (includeUsage && !b.omitUsage) {
      const c = chunk([]);
      c.usage = usageObject(promptTokens, completionTokens, b);
      write(c);
    }
    if (!b.noDone) write("[DONE]");
    res.end();
  }

  function embeddings(res: ServerResponse, model: string, json: unknown, b: MockBehaviour, extra: Record<string, string>) {
    const req = isObj(json) ? json : {};
    const inputs =
      Array.isArray(req.input) && req.input.every((x) => typeof x === "string")
        ? (req.input as string[])
        : [typeof req.input === "string" ? req.input : JSON.stringify(req.input)];
    const dims = typeof req.dimensions === "number" ? req.dimensions : 8;
    const data = inputs.map((text, index) => {
      const vec = Array.from({ length: dims }, (_, i) => Number(Math.sin(text.length + i).toFixed(6)));
      const embedding = req.encoding_format === "base64" ? Buffer.from(new Float32Array(vec).buffer).toString("base64") : vec;
      return { object: "embedding", index, embedding };
    });
    const tokens = inputs.reduce((n, t) => n + fakeTokens(t), 0);
    const usage = b.omitUsage
      ? undefined
      : {
          prompt_tokens: tokens,
          total_tokens: tokens,
          ...(b.absurdUsage ? { prompt_tokens: 1e12, total_tokens: 1e12 } : {}),
          ...(b.usage ?? {}),
        };
    sendJson(res, 200, { object: "list", data, model, usage }, extra);
  }

  function moderations(res: ServerResponse, model: string, json: unknown, extra: Record<string, string>) {
    const req = isObj(json) ? json : {};
    const inputs = Array.isArray(req.input) ? req.input : [req.input];
    const cats = [
      "harassment",
      "harassment/threatening",
      "hate",
      "hate/threatening",
      "illicit",
      "illicit/violent",
      "self-harm",
      "self-harm/instructions",
      "self-harm/intent",
      "sexual",
      "sexual/minors",
      "violence",
      "violence/graphic",
    ];
    const results = inputs.map((input) => {
      const flagged = typeof input === "string" && /\bkill\b/i.test(input);
      return {
        flagged,
        categories: Object.fromEntries(cats.map((c) => [c, flagged && c === "violence"])),
        category_scores: Object.fromEntries(cats.map((c) => [c, flagged && c === "violence" ? 0.91 : 0.0001])),
        category_applied_input_types: Object.fromEntries(cats.map((c) => [c, ["text"]])),
      };
    });
    sendJson(res, 200, { id: `modr-${rid(24)}`, model: model === "gpt-4o-mini" ? "omni-moderation-latest" : model, results }, extra);
  }

  function images(res: ServerResponse, model: string, json: unknown, extra: Record<string, string>) {
    const req = isObj(json) ? json : {};
    const n = typeof req.n === "number" && req.n > 0 ? req.n : 1;
    const b64 = req.response_format === "b64_json" || model.startsWith("gpt-image");
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64");
    const data = Array.from({ length: n }, (_, i) =>
      b64
        ? { b64_json: png }
        : { url: `https://mock.invalid/images/${rid(12)}-${i}.png`, revised_prompt: typeof req.prompt === "string" ? req.prompt : "" },
    );
    const out: Obj = { created: nowSec(), data };
    if (model.startsWith("gpt-image"))
      out.usage = { input_tokens: 50, output_tokens: 4160, total_tokens: 4210, input_tokens_details: { text_tokens: 50, image_tokens: 0 } };
    sendJson(res, 200, out, extra);
  }

  function speech(res: ServerResponse, json: unknown, extra: Record<string, string>) {
    const req = isObj(json) ? json : {};
    const format = typeof req.response_format === "string" ? req.response_format : "mp3";
    const types: Record<string, string> = {
      mp3: "audio/mpeg",
      opus: "audio/ogg",
      aac: "audio/aac",
      flac: "audio/flac",
      wav: "audio/wav",
      pcm: "audio/pcm",
    };
    // An ID3v2 header and one silent MPEG-1 Layer III frame header, repeated per input character.
    const frame = Buffer.from("fffb9064000000000000000000000000", "hex");
    const chars = typeof req.input === "string" ? [...req.input].length : 1;
    const audio = Buffer.concat([Buffer.from("494433030000000000", "hex"), ...Array.from({ length: Math.max(1, chars) }, () => frame)]);
    res.writeHead(200, { "Content-Type": types[format] ?? "audio/mpeg", "Content-Length": String(audio.length), ...extra });
    res.end(audio);
  }

  async function transcription(
    res: ServerResponse,
    kind: string,
    bytes: Buffer,
    ct: string,
    b: MockBehaviour,
    extra: Record<string, string>,
  ) {
    let form: FormData;
    try {
      form = await new Request("http://mock/", {
        method: "POST",
        body: bytes as unknown as BodyInit,
        headers: { "content-type": ct },
      }).formData();
    } catch {
      return sendJson(res, 400, {
        error: { message: "Could not parse multipart form", type: "invalid_request_error", param: null, code: null },
      });
    }
    if (!(form.get("file") instanceof Blob)) {
      return sendJson(res, 400, {
        error: {
          message: "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      });
    }
    const model = String(form.get("model") ?? "whisper-1");
    const format = String(form.get("response_format") ?? "json");
    const text = b.content ?? DEFAULT_TRANSCRIPT;
    const half = text.indexOf(" ", Math.floor(text.length / 2));
    const segs = half > 0 ? [text.slice(0, half), text.slice(half + 1)] : [text];
    const ts = (sec: number, sep: string) => {
      const ms = Math.round(sec * 1000);
      const p = (n: number, w = 2) => String(n).padStart(w, "0");
      return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}${sep}${p(ms % 1000, 3)}`;
    };
    const cue = (i: number, sep: string) => `${ts(i * 1.5, sep)} --> ${ts((i + 1) * 1.5, sep)}`;
    switch (format) {
      case "text":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", ...extra });
        return res.end(`${text}\n`);
      case "srt":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", ...extra });
        return res.end(segs.map((s, i) => `${i + 1}\n${cue(i, ",")}\n${s}\n`).join("\n"));
      case "vtt":
        res.writeHead(200, { "Content-Type": "text/vtt; charset=utf-8", ...extra });
        return res.end(`WEBVTT\n\n${segs.map((s, i) => `${cue(i, ".")}\n${s}\n`).join("\n")}`);
      case "verbose_json":
        return sendJson(
          res,
          200,
          {
            task: kind === "translations" ? "translate" : "transcribe",
            language: "english",
            duration: 3,
            text,
            segments: segs.map((s, i) => ({
              id: i,
              seek: 0,
              start: i * 1.5,
              end: (i + 1) * 1.5,
              text: ` ${s}`,
              tokens: [50364],
              temperature: 0,
              avg_logprob: -0.2,
              compression_ratio: 0.9,
              no_speech_prob: 0.01,
            })),
          },
          extra,
        );
      default: {
        const out: Obj = { text };
        if (model.startsWith("gpt-4o") && !b.omitUsage) {
          out.usage = {
            type: "tokens",
            input_tokens: 14,
            input_token_details: { text_tokens: 0, audio_tokens: 14 },
            output_tokens: fakeTokens(text),
            total_tokens: 14 + fakeTokens(text),
          };
        }
        return sendJson(res, 200, out, extra);
      }
    }
  }

  function rerank(res: ServerResponse, model: string, json: unknown, b: MockBehaviour, extra: Record<string, string>) {
    const req = isObj(json) ? json : {};
    const docs = Array.isArray(req.documents) ? req.documents : [];
    const query = typeof req.query === "string" ? req.query : "";
    const texts = docs.map((d) => (typeof d === "string" ? d : isObj(d) && typeof d.text === "string" ? d.text : JSON.stringify(d)));
    const scored = texts.map((t, index) => ({
      index,
      relevance_score: Number((1 / (1 + Math.abs(t.length - query.length))).toFixed(6)),
      text: t,
    }));
    scored.sort((x, y) => y.relevance_score - x.relevance_score);
    const top = typeof req.top_n === "number" ? scored.slice(0, req.top_n) : scored;
    const withDocs = req.return_documents !== false;
    const tokens = fakeTokens(query) + texts.reduce((n, t) => n + fakeTokens(t), 0);
    sendJson(
      res,
      200,
      {
        model,
        usage: b.omitUsage ? undefined : { total_tokens: b.absurdUsage ? 1e12 : tokens },
        results: top.map((r) =>
          withDocs
            ? { index: r.index, relevance_score: r.relevance_score, document: { text: r.text } }
            : { index: r.index, relevance_score: r.relevance_score },
        ),
      },
      extra,
    );
  }

  async function cloudflareRun(
    res: ServerResponse,
    model: string,
    json: unknown,
    bytes: Buffer,
    ct: string,
    b: MockBehaviour,
    extra: Record<string, string>,
  ) {
    if (model.includes("whisper")) {
      const text = b.content ?? DEFAULT_TRANSCRIPT;
      const audioLen = ct.includes("json") && isObj(json) && typeof json.audio === "string" ? json.audio.length : bytes.length;
      if (audioLen === 0)
        return sendJson(res, 400, {
          result: null,
          success: false,
          errors: [{ code: 5006, message: "Error: required properties at '/' are 'audio'" }],
          messages: [],
        });
      const words = text.split(" ").map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4 }));
      return sendJson(
        res,
        200,
        {
          result: { text, word_count: words.length, words, vtt: `WEBVTT\n\n00:00.000 --> 00:03.000\n${text}\n` },
          success: true,
          errors: [],
          messages: [],
        },
        extra,
      );
    }
    const req = isObj(json) ? json : {};
    if (typeof req.prompt !== "string" && !Array.isArray(req.messages)) {
      return sendJson(res, 400, {
        result: null,
        success: false,
        errors: [{ code: 5006, message: "Error: required properties at '/' are 'prompt'" }],
        messages: [],
      });
    }
    const text = b.content ?? DEFAULT_TEXT;
    const usage = {
      prompt_tokens: fakeTokens(String(req.prompt ?? "")),
      completion_tokens: fakeTokens(text),
      total_tokens: fakeTokens(String(req.prompt ?? "")) + fakeTokens(text),
    };
    if (req.stream !== true)
      return sendJson(res, 200, { result: { response: text, usage }, success: true, errors: [], messages: [] }, extra);
    res.writeHead(200, { "Content-Type": "text/event-stream", ...extra });
    for (const piece of splitReply(text, b.chunks)) {
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      res.write(`data: ${JSON.stringify({ response: piece, p: rid(8) })}\n\n`);
    }
    if (!b.omitUsage) res.write(`data: ${JSON.stringify({ response: "", usage })}\n\n`);
    res.write("data: [DONE]\n\n");
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setBehaviour(b) {
      behaviour = { ...(b ?? {}) };
      failuresLeft = behaviour.failTimes;
    },
    reset() {
      requests.length = 0;
      behaviour = {};
      failuresLeft = undefined;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
