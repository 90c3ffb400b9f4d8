// The inbound-protocol seam: how a caller that speaks another protocol than OpenAI's chat
// completions (Anthropic Messages, Gemini, OpenAI Responses) is served by the one pipeline.
//
// The canonical request is an OpenAI chat completions body: every upstream adapter takes it
// (lib/relay/providers), pricing, limits, routing, billing and logs read it. A protocol decodes
// its caller's body into it, and encodes the canonical answer back: the whole answer from an
// OpenAI chat.completion, a stream from OpenAI chat.completion.chunk objects, and errors in its
// own shape. Adding a caller protocol is one folder here plus its line in ./index.ts.
import type { ErrorShape, RelayRequest, RelayResponse } from "@/lib/relay/http";
import type { ConversionNotes } from "./notes";

/** What the path says beside the body (Gemini names the model and the streaming in its path). */
export interface InboundRoute {
  model?: string;
  stream?: boolean;
  /**
   * Anything else the path or query says that only the protocol's encoders read (Gemini's
   * streamGenerateContent without `alt=sse` answers one JSON array).
   */
  variant?: string;
}

/** One call as the protocol's encoders see it. */
export interface InboundInfo {
  requestId: string;
  /** The model as the caller named it. */
  model: string;
  /** Unix seconds when the call came in. */
  created: number;
  /** The caller's own body as it sent it (Responses echoes parts of it in its answer). */
  request: Record<string, unknown>;
  /** What the path said (the route `match` gave). */
  route?: InboundRoute;
}

/**
 * One call's stream encoder: canonical chunks in, the caller's server-sent events out (complete
 * events as SSE text, "" for nothing). The relay guarantees the order: chunks (a usage chunk,
 * `choices: []`, comes last), then `error` at most once, then `done` exactly once.
 */
export interface InboundStreamEncoder {
  chunk(chunk: Record<string, unknown>): string;
  /** The stream failed (upstream error, timeout, shutdown): OpenAI's error object. */
  error(error: { message: string; type: string; code: string | number | null }): string;
  /** The end of the stream. */
  done(): string;
}

/** What a protocol does with a request it recognises. */
export type InboundMatch =
  /** A model call: decoded to the canonical request and run through the pipeline as `chat`. */
  | { call: InboundRoute }
  /** A request of its own (a model list, a token count): answered by the protocol. */
  | { serve(req: RelayRequest, requestId: string): Promise<RelayResponse> };

export interface InboundProtocol extends ErrorShape {
  readonly name: string;
  /**
   * Whether `method path` is this protocol's, and how it is served. Path without trailing slash;
   * `query` for the protocols whose query string says how to answer (Gemini's `alt=sse`).
   */
  match(method: string, path: string, query: URLSearchParams): InboundMatch | null;
  /**
   * The caller's JSON body → the canonical OpenAI chat completions body, best effort. The decoder
   * runs before routing, and a channel that speaks the protocol natively gets the caller's own body
   * whatever the decoder thinks of it: so nothing here may stop a call that a native channel could
   * serve. What cannot be converted is handed to `notes.refuse` (answered only when the attempt's
   * channel converts: lib/relay/call/attempts.ts), what is left out harmlessly to `notes.drop`.
   * A body the decoder cannot read at all may still throw a RelayError (400): the pipeline then
   * keeps it as the refusal and goes on with a minimal canonical body (inbound/index.ts). Without
   * `notes`, refusals throw (strictNotes).
   */
  toCanonical(body: Record<string, unknown>, route: InboundRoute, notes?: ConversionNotes): Record<string, unknown>;
  /** A canonical whole answer (OpenAI chat.completion) → the caller's answer body. */
  fromCanonical(answer: Record<string, unknown>, info: InboundInfo): unknown;
  /** A fresh encoder for one streamed call. */
  streamEncoder(info: InboundInfo): InboundStreamEncoder;
  /** An error answer's body in the protocol's shape (the message already carries the request id). */
  errorBody(status: number, message: string, type: string, code: string | number | null): unknown;
}
