// The contract between the relay pipeline and a vendor adapter. Adapters are pure: they never
// fetch, never bill, never build the client's HTTP response.
import type { Dispatcher } from "undici";
import type { InboundRoute } from "../inbound/types";
import type { EventSink } from "../openai/sse";
import type { ChannelConfig, RelayMode } from "../types";
import type { Exchange } from "../upstream";

export interface BuildRequestInput {
  channel: ChannelConfig;
  mode: RelayMode;
  /** Model name after the channel's model_mapping. */
  upstreamModel: string;
  /**
   * Model name the client asked for. When equal to `upstreamModel`, multipart bodies pass through
   * untouched. Defaults to `upstreamModel`.
   */
  requestModel?: string;
  /** Path the client called, without query ("/v1/chat/completions", "/v1/images/edits"…). */
  clientPath: string;
  /** The client's query string ("a=1&b=2" or URLSearchParams); only a few vendors read it. */
  clientQuery?: string | URLSearchParams;
  /** The client's raw body: JSON text/bytes, or multipart bytes. */
  body: Uint8Array | string;
  /** The client's Content-Type (multipart bodies need their boundary). */
  contentType: string;
  /** The client asked for a stream (`"stream": true`). */
  stream: boolean;
  /** The JSON body, if the pipeline already parsed it (vendors that convert bodies use it). */
  json?: Record<string, unknown>;
  /**
   * The body is the canonical request decoded from another caller protocol (Anthropic, Gemini,
   * Responses): parameters of that protocol with no OpenAI equivalent (`top_k`, an effort for a
   * model that does not reason) may be in it, which a direct OpenAI caller chose to send and keeps.
   */
  converted?: boolean;
  /**
   * The console playground (POST /pg/chat/completions): its `group` member chooses Qiao's group
   * and is no vendor's parameter (OpenAI refuses unknown ones), so it is not sent upstream.
   */
  playground?: boolean;
  /**
   * The channel's connection pool (its proxy and address rules): an adapter that must fetch
   * something before the call (an access token) fetches it through this, never around it.
   */
  dispatcher?: Dispatcher;
  /** The caller's headers (a native protocol's builder forwards `anthropic-version`, `anthropic-beta`). */
  callerHeaders?: { get(name: string): string | null; keys?(): Iterable<string> };
  /**
   * What the caller's path said, for a native builder (Gemini names streaming, and its array
   * variant, in the path and query).
   */
  callerRoute?: InboundRoute;
}

/**
 * Present on an UpstreamRequest when the upstream answers in a non-OpenAI shape. The pipeline
 * sends the converted body (non-stream) or maps each event (stream) before its usual handling.
 */
export interface ResponseConverter {
  /**
   * Non-stream: the upstream's parsed JSON → an OpenAI answer (chat.completion, embeddings list…).
   * A vendor's 200 that is really an error (Baidu's `error_code`, Cohere's `message`) becomes
   * OpenAI's `{"error": {message, type, code}}`, which the pipeline treats as a failed attempt.
   */
  json(upstream: unknown): { body: string; contentType: string };
  /**
   * Stream: one upstream event payload (parsed JSON) → an OpenAI chat.completion.chunk, or null
   * to drop it. The converter is made per call (in buildRequest), so it may keep state across
   * events (a message id, the index of a tool call, input tokens reported at the start).
   */
  streamEvent?(data: unknown): Record<string, unknown> | null;
}

/**
 * A stream body that is not server-sent events of JSON (AWS's binary event stream, Cohere's
 * newline-delimited JSON, Zhipu v3's plain-text events): made per call, it reads the upstream's
 * bytes into events and hands each event's JSON text to the sink, which
 * `ResponseConverter.streamEvent` then reads like any other upstream's events. It never writes
 * `data:` lines: the stream relay (lib/relay/openai/sse.ts) is the only writer of SSE.
 */
export interface StreamFraming {
  /** One body chunk as it arrived (events may span chunks): its complete events to `out`. */
  push(chunk: Uint8Array, out: EventSink): void;
  /** The body ended: the last events to `out`. */
  end(out: EventSink): void;
}

export interface UpstreamRequest {
  method: "POST";
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
  /**
   * `stream_options.include_usage` was forced on, so the upstream will end with a usage chunk;
   * the stream relay drops it unless the client asked for it.
   */
  forcedIncludeUsage: boolean;
  response?: ResponseConverter;
  /** The stream body's framing when it is not SSE (see StreamFraming). */
  framing?: StreamFraming;
  /**
   * A transport other than one HTTP request (Spark's WebSocket): opens the exchange itself over
   * the channel's dispatcher (its proxy and address rules). `url`, `headers` and `body` are then
   * whatever the transport needs, and its answer reaches the pipeline like an HTTP one (a status,
   * headers, and a body: JSON for a whole answer, SSE for a stream).
   */
  open?(dispatcher: Dispatcher): Exchange;
  /**
   * The upstream speaks the caller's own protocol (a native builder, ProviderAdapter.native):
   * its answer goes to the caller as it came, and `response` only reads it (usage, errors).
   * Only for bodies framed as the caller expects (SSE, JSON): never with `framing`.
   */
  passthrough?: boolean;
  /**
   * Features of the request the vendor cannot take, left out by this builder (a parameter the
   * target refuses, such as `top_k` for OpenAI): named, with the caller protocol's own, in the
   * `x-qiao-dropped` response header and the log row.
   */
  dropped?: readonly string[];
}

/** How an adapter treats `stream_options` on streamed chat/completions requests. */
export type StreamOptionsPolicy =
  /** Set `include_usage: true` (the upstream accepts it): exact billing from upstream usage. */
  | "force"
  /** Leave the client's value alone (unknown upstream): local counting if no usage arrives. */
  | "passthrough"
  /** Remove it (the upstream rejects the field, e.g. Mistral's 422 extra_forbidden). */
  | "strip";

/**
 * One channel type's adapter. Its name and default base URL are the catalogue's
 * (lib/channels/catalog.ts), not repeated here.
 */
export interface ProviderAdapter {
  /** The modes it serves (the channel test picks chat, else embeddings). */
  readonly supportedModes: ReadonlySet<RelayMode>;
  /**
   * Throws a RelayError (400 `unsupported_mode`, or 500 for a misconfigured channel). Returns a
   * promise only when it must fetch something first (an access token, cached across calls);
   * the OpenAI-protocol adapters answer synchronously, which the hot path relies on.
   */
  buildRequest(input: BuildRequestInput): UpstreamRequest | Promise<UpstreamRequest>;
  /**
   * Builders for callers that speak the vendor's own protocol (an inbound protocol's name →
   * builder): `body` and `json` are then the caller's own request, sent on with the model mapped,
   * and the answer passes through (UpstreamRequest.passthrough) instead of being converted twice.
   */
  readonly native?: Readonly<Record<string, NativeBuilder>>;
}

/**
 * A native builder. It returns null when this call cannot pass through after all (a variant of
 * the protocol the channel does not answer as the caller expects, a base URL that is a gateway
 * without the route): the attempt then converts, through `buildRequest` and the canonical body,
 * as on any other channel, and the decoder's refusals of what cannot be converted apply.
 */
export type NativeBuilder = (input: BuildRequestInput) => UpstreamRequest | Promise<UpstreamRequest> | null;
