// The caller protocols beside OpenAI's chat completions (see ./types.ts), and the plumbing the
// pipeline uses to serve them: finding a request's protocol, decoding its body into the
// canonical request, and re-encoding the relay's OpenAI stream for the caller.
import { RelayError } from "@/lib/relay/errors";
import { nestsTooDeep, tooDeep } from "@/lib/relay/request/json-depth";
import type { RelayRequest } from "@/lib/relay/http";
import { encodeSse, SseReader } from "@/lib/relay/openai/sse";
import { anthropicProtocol } from "./anthropic";
import { gemini } from "./gemini";
import { responsesProtocol } from "./responses";
import type { InboundInfo, InboundMatch, InboundProtocol, InboundRoute, InboundStreamEncoder } from "./types";
import { isObj } from "@/lib/obj";
import { BYTE_ESTIMATE_LIMIT } from "@/lib/relay/request/request-body";
import { estimateTextTokens, estimateTokensFromBytes } from "@/lib/relay/openai/token-count";
import { CollectedNotes } from "./notes";

/** Every caller protocol the relay speaks besides OpenAI's chat completions. */
export const INBOUND_PROTOCOLS: readonly InboundProtocol[] = [anthropicProtocol, gemini, responsesProtocol];

/** The protocol that claims `method path` (no trailing slash), and how; null for none. */
export function matchInbound(
  method: string,
  path: string,
  query: URLSearchParams,
): { protocol: InboundProtocol; match: InboundMatch } | null {
  for (const protocol of INBOUND_PROTOCOLS) {
    const match = protocol.match(method, path, query);
    if (match) return { protocol, match };
  }
  return null;
}

/** The protocol whose shape errors on `method path` take (a trailing slash allowed); undefined for OpenAI's. */
export function protocolFor(method: string, path: string, query = new URLSearchParams()): InboundProtocol | undefined {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return matchInbound(method, trimmed, query)?.protocol;
}

/** The caller's request decoded into the canonical chat completions body (InboundCall.canonical). */
export interface CanonicalBody {
  json: Record<string, unknown>;
  /** `json` serialised: the body a converting adapter is handed. */
  bytes: Buffer;
  /**
   * Why the request cannot be converted (types.ts, toCanonical's `refuse`): answered when the
   * attempt's channel converts, never when it passes the request through.
   */
  refusal: RelayError | null;
  /** What a converted request leaves out (ConversionNotes.drop): named in `x-qiao-dropped`. */
  dropped: readonly string[];
}

/** One call in another protocol: the protocol, and the call as its encoders see it. */
export class InboundCall {
  private decoded: CanonicalBody | null = null;

  constructor(
    readonly protocol: InboundProtocol,
    readonly info: InboundInfo,
    /** The caller's body as it came (a channel that speaks the protocol gets it as is). */
    readonly rawBody: Uint8Array = new Uint8Array(0),
  ) {}

  /**
   * The canonical request, decoded on first use: by an attempt that converts, by the prompt check
   * when it is on, or by the local count when the vendor reports no usage. A call that only
   * passes through never decodes its body.
   */
  canonical(): CanonicalBody {
    return (this.decoded ??= decodeCanonical(this.protocol, this.info.request, this.info.route ?? {}));
  }

  /** See CanonicalBody.refusal. */
  get conversionRefusal(): RelayError | null {
    return this.canonical().refusal;
  }

  /** See CanonicalBody.dropped. */
  get dropped(): readonly string[] {
    return this.canonical().dropped;
  }

  /** An error event in the caller's protocol, for a passed-through stream that broke. */
  streamError(error: { message: string; type: string; code: string | number | null }): Uint8Array {
    return encodeSse(this.protocol.streamEncoder(this.info).error(error));
  }

  /** The canonical whole answer (an OpenAI chat.completion) → the caller's body. */
  encodeWhole(answer: Record<string, unknown>): string {
    return JSON.stringify(this.protocol.fromCanonical(answer, this.info));
  }

  /** A stream writer that turns the relay's OpenAI SSE bytes into the caller's events. */
  streamWriter(): InboundStreamWriter {
    return new InboundStreamWriter(this.protocol.streamEncoder(this.info));
  }
}

const decoder = new TextDecoder();

/**
 * A call in another protocol as the pipeline reads it before routing: what every model call has,
 * in the canonical body's names (`json`: the model, the streaming, the output cap and the
 * choices), and the reservation's estimate of its prompt. Nothing of it needs the protocol's
 * decoder: the full decode waits for an attempt that converts (InboundCall.canonical).
 */
export interface InboundRead {
  call: InboundCall;
  json: Record<string, unknown>;
  /** Prompt tokens for the reservation (reservePromptTokens' rule on the caller's own text). */
  reserveTokens: number;
}

/**
 * Reads a call in another protocol: its body must be a JSON object (a 400 at once otherwise), and
 * the model, the streaming and the output cap are read from it by each protocol's names. A streamed
 * call always asks for the usage chunk: every protocol reports usage at its stream's end.
 */
export function readInbound(req: RelayRequest, protocol: InboundProtocol, route: InboundRoute, requestId: string): InboundRead {
  if (nestsTooDeep(req.body)) throw tooDeep();
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(req.body));
  } catch {
    throw new RelayError(400, "请求体不是合法的 JSON", { type: "invalid_request_error", code: "invalid_json" });
  }
  if (!isObj(body)) throw new RelayError(400, "请求体必须是 JSON 对象", { type: "invalid_request_error", code: "invalid_json" });
  const info: InboundInfo = { requestId, model: "", created: Math.floor(Date.now() / 1000), request: body, route };
  const call = new InboundCall(protocol, info, req.body);
  let json = essentials(body, route);
  // No model in the body or the path: the decoder says what is wrong with the request (or names a
  // model of its own), as it did before anything else was read.
  if (json === null) json = call.canonical().json;
  if (typeof json.model === "string") info.model = json.model;
  const reserveTokens = req.body.length <= BYTE_ESTIMATE_LIMIT ? estimateTokensFromBytes(req.body) : estimateCallerText(body);
  return { call, json, reserveTokens };
}

/**
 * Decodes the caller's body into the canonical request: the protocol turns it into an OpenAI chat
 * completions body. A body the decoder cannot read may still be served by a channel that speaks
 * the protocol (a new field or role of the vendor's): the error waits as the refusal for a
 * converting attempt, and the canonical body is the minimal one below.
 */
function decodeCanonical(protocol: InboundProtocol, body: Record<string, unknown>, route: InboundRoute): CanonicalBody {
  const notes = new CollectedNotes();
  let json: Record<string, unknown>;
  try {
    json = protocol.toCanonical(body, route, notes);
  } catch (error) {
    const minimal = error instanceof RelayError && error.status === 400 ? minimalCanonical(body, route) : null;
    if (!minimal) throw error;
    notes.refusal = error as RelayError;
    json = minimal;
  }
  if (json.stream === true) json.stream_options = { include_usage: true };
  return { json, bytes: Buffer.from(JSON.stringify(json)), refusal: notes.refusal, dropped: notes.dropped };
}

/**
 * What every model call has, in the canonical body's names, read without the protocol's decoder:
 * the model (the path's, else the body's), the streaming, the output cap and the number of
 * choices (each protocol's name for them). Null without a model.
 */
function essentials(body: Record<string, unknown>, route: InboundRoute): Record<string, unknown> | null {
  const model = route.model ?? body.model;
  if (typeof model !== "string" || model === "") return null;
  const out: Record<string, unknown> = { model };
  if (route.stream ?? body.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  const config = isObj(body.generationConfig) ? body.generationConfig : isObj(body.generation_config) ? body.generation_config : null;
  const max = body.max_tokens ?? body.max_output_tokens ?? config?.maxOutputTokens ?? config?.max_output_tokens;
  if (Number.isSafeInteger(max) && (max as number) > 0) out.max_tokens = max;
  const n = config?.candidateCount ?? config?.candidate_count;
  if (Number.isSafeInteger(n) && (n as number) > 1) out.n = n;
  return out;
}

/** Keys whose strings are inline files (base64 images, documents, audio) or opaque state, not text. */
const NOT_TEXT: ReadonlySet<string> = new Set(["model", "data", "file_data", "signature", "encrypted_content"]);

/**
 * estimateTextTokens over every string of a caller's body but inline files and data URLs (an
 * image is a few hundred tokens, not its base64), for the reservation of a large body.
 */
function estimateCallerText(value: unknown): number {
  if (typeof value === "string") return value.startsWith("data:") ? 0 : estimateTextTokens(value);
  // The depth is bounded where the body was read (json-depth.ts): the walk may recurse.
  let n = 0;
  if (Array.isArray(value)) for (const v of value) n += estimateCallerText(v);
  else if (isObj(value)) for (const key in value) if (!NOT_TEXT.has(key)) n += estimateCallerText(value[key]);
  return n;
}

/**
 * The canonical body of a request the decoder cannot read: the essentials and, for counting and
 * the prompt checks, all the body's text as one user message. Null without a model: nothing could
 * route the call.
 */
function minimalCanonical(body: Record<string, unknown>, route: InboundRoute): Record<string, unknown> | null {
  const out = essentials(body, route);
  if (!out) return null;
  const texts: string[] = [];
  collectText(body, texts, 0);
  out.messages = [{ role: "user", content: texts.join("\n") }];
  return out;
}

function collectText(value: unknown, out: string[], depth: number): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectText(v, out, depth + 1);
  else if (isObj(value)) for (const key in value) if (depth > 0 || key !== "model") collectText(value[key], out, depth + 1);
}

/**
 * Re-encodes the relay's stream (OpenAI chunks, at most one error event, one `[DONE]`) for the
 * caller: each event is read back and handed to the protocol's encoder. Keep-alive comments go
 * straight to the client and never pass through here.
 */
export class InboundStreamWriter {
  private out = "";
  private ended = false;
  private readonly reader = new SseReader({ onEvent: (e) => this.event(e.data) });

  constructor(private readonly encoder: InboundStreamEncoder) {}

  write(bytes: Uint8Array | null): Uint8Array | null {
    if (!bytes || this.ended) return null;
    this.reader.feed(bytes);
    if (this.out === "") return null;
    const text = this.out;
    this.out = "";
    return encodeSse(text);
  }

  private event(data: string): void {
    if (this.ended) return;
    if (data === "[DONE]") {
      this.ended = true;
      this.out += this.encoder.done();
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return;
    }
    if (!isObj(chunk)) return;
    if (isObj(chunk.error) && chunk.choices === undefined) {
      const e = chunk.error;
      this.out += this.encoder.error({
        message: typeof e.message === "string" ? e.message : "upstream error",
        type: typeof e.type === "string" ? e.type : "upstream_error",
        code: typeof e.code === "string" || typeof e.code === "number" ? e.code : null,
      });
      return;
    }
    this.out += this.encoder.chunk(chunk);
  }
}

export type { ConversionNotes } from "./notes";
export type { InboundInfo, InboundMatch, InboundProtocol, InboundRoute, InboundStreamEncoder } from "./types";
