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

/** One call in another protocol: the protocol, and the call as its encoders see it. */
export class InboundCall {
  constructor(
    readonly protocol: InboundProtocol,
    readonly info: InboundInfo,
    /** The caller's body as it came (a channel that speaks the protocol gets it as is). */
    readonly rawBody: Uint8Array = new Uint8Array(0),
    /**
     * Why the request cannot be converted (types.ts, toCanonical's `refuse`): answered when the
     * attempt's channel converts, never when it passes the request through.
     */
    readonly conversionRefusal: RelayError | null = null,
    /** What a converted request leaves out (ConversionNotes.drop): named in `x-qiao-dropped`. */
    readonly dropped: readonly string[] = [],
  ) {}

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
 * Decodes a call in another protocol into the canonical request: the caller's JSON is read, the
 * protocol turns it into an OpenAI chat completions body, and the request the pipeline goes on
 * with carries that body (its path, headers and connection stay the caller's). A streamed call
 * always asks for the usage chunk: every protocol reports usage at its stream's end.
 */
export function canonicalRequest(
  req: RelayRequest,
  protocol: InboundProtocol,
  route: InboundRoute,
  requestId: string,
): { req: RelayRequest; call: InboundCall } {
  if (nestsTooDeep(req.body)) throw tooDeep();
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(req.body));
  } catch {
    throw new RelayError(400, "请求体不是合法的 JSON", { type: "invalid_request_error", code: "invalid_json" });
  }
  if (!isObj(body)) throw new RelayError(400, "请求体必须是 JSON 对象", { type: "invalid_request_error", code: "invalid_json" });
  const notes = new CollectedNotes();
  let canonical: Record<string, unknown>;
  try {
    canonical = protocol.toCanonical(body, route, notes);
  } catch (error) {
    // The decoder cannot read this body, but a channel that speaks the protocol may still serve
    // it (a new field or role of the vendor's): the error waits as the refusal for a converting
    // attempt, and the call goes on with what every request has (the minimal body below).
    const minimal = error instanceof RelayError && error.status === 400 ? minimalCanonical(body, route) : null;
    if (!minimal) throw error;
    notes.refusal = error as RelayError;
    canonical = minimal;
  }
  if (canonical.stream === true) canonical.stream_options = { include_usage: true };
  const info: InboundInfo = {
    requestId,
    model: typeof canonical.model === "string" ? canonical.model : "",
    created: Math.floor(Date.now() / 1000),
    request: body,
    route,
  };
  // The same request in every other respect. summariseJsonBody reads `this.body`, so a large
  // canonical body is still summarised off the event loop; onGone stays bound to the original,
  // whose connection it watches.
  const derived: RelayRequest = Object.create(req, {
    body: { value: Buffer.from(JSON.stringify(canonical)), enumerable: true },
    onGone: { value: req.onGone.bind(req) },
  });
  return { req: derived, call: new InboundCall(protocol, info, req.body, notes.refusal, notes.dropped) };
}

/**
 * What every model call has, read without the protocol's decoder: the model (the path's, else the
 * body's), the streaming, the output cap (each protocol's name for it) and, for counting and the
 * prompt checks, all the body's text as one user message. Null without a model: nothing could
 * route the call.
 */
function minimalCanonical(body: Record<string, unknown>, route: InboundRoute): Record<string, unknown> | null {
  const model = route.model ?? body.model;
  if (typeof model !== "string" || model === "") return null;
  const texts: string[] = [];
  collectText(body, texts, 0);
  const out: Record<string, unknown> = { model, messages: [{ role: "user", content: texts.join("\n") }] };
  if (route.stream ?? body.stream === true) out.stream = true;
  const config = isObj(body.generationConfig) ? body.generationConfig : null;
  const max = body.max_tokens ?? body.max_output_tokens ?? config?.maxOutputTokens;
  if (Number.isSafeInteger(max) && (max as number) > 0) out.max_tokens = max;
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
