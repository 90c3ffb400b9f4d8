// Relaying an OpenAI-style chat/completions SSE stream to the client.
//
// Differences from new-api's OaiStreamHandler, on purpose:
// - every upstream chunk is forwarded as soon as it is parsed (new-api held one chunk back);
// - a usage-only final chunk (`choices: []`) is captured, and forwarded only if the client asked
//   for `stream_options.include_usage`; if the client asked and the upstream sent none, one is
//   synthesised from the local count;
// - the client always gets exactly one `data: [DONE]`, also after upstream errors, breaks and
//   idle timeouts, which are reported as an OpenAI error event first.
// Event payloads are forwarded as the upstream's own JSON text, never re-serialised. Plain
// `data: {…}` events with LF line ends (what OpenAI-compatible upstreams send) are read straight
// from the bytes and forwarded as the same bytes. A chunk that cannot hold usage or an error (no
// `"usage"` / `"error"` in it) is not even parsed until something needs its text (a local token
// count when the upstream reports no usage), with the held bytes bounded; before the first token
// that also takes bytes that say for sure whether the chunk holds one (plainTokenCheck), so the
// first token's time stays exact. Anything else goes through the full SSE reader.
//
// Usage from a plain Node server:
//   const relay = new OpenAIStreamRelay({...});
//   for await (const chunk of upstream.body) { const out = relay.transform(chunk); if (out) res.write(out); if (relay.done) break; }
//   const tail = relay.finish(); if (tail) res.end(tail); else res.end();
// or as a web stream: upstream.body.pipeThrough(openAIStreamTransform(relay)).
import { isObj, type Obj } from "@/lib/obj";
import { countCompletionTokens } from "./token-count";
import { errorFromJson, LOCAL_ERROR_TYPE, UPSTREAM_ERROR_TYPE, type UpstreamError } from "../errors";
import { maskSensitiveText } from "../../net/mask";
import { encodeSse, type EventSink, SSE_DONE_TEXT, SseReader, splitDataLines, sseJson, type SseEvent } from "./sse";
import type { StreamFraming } from "../providers/types";
import { simpleUsage, type Usage } from "@/lib/billing/usage";
import { hasTokens, normalizeUsage } from "./usage";

export type StreamEndReason =
  /** The upstream sent [DONE]. */
  | "done"
  /** The upstream closed the body without [DONE] (common for non-OpenAI vendors; not an error). */
  | "eof"
  /** The upstream sent an error event mid-stream. */
  | "upstream_error"
  /** The connection broke (reported by the caller through `abort("interrupted")`). */
  | "interrupted"
  /** No bytes for STREAMING_TIMEOUT (reported by the caller through `abort("timeout")`). */
  | "timeout"
  /** The upstream sent more than the SSE reader will buffer without completing an event. */
  | "overflow"
  /** The server stopped while the stream ran (reported by the caller through `abort("shutdown")`). */
  | "shutdown";

const ABORTS: Record<"interrupted" | "timeout" | "shutdown", UpstreamError> = {
  interrupted: { status: 502, message: "upstream stream interrupted", type: UPSTREAM_ERROR_TYPE, code: "stream_interrupted", param: null },
  timeout: {
    status: 502,
    message: "upstream stream timed out (no data received in time)",
    type: UPSTREAM_ERROR_TYPE,
    code: "stream_timeout",
    param: null,
  },
  shutdown: { status: 503, message: "server shutting down", type: UPSTREAM_ERROR_TYPE, code: "server_shutdown", param: null },
};

export interface OpenAIStreamOptions {
  mode: "chat" | "completions";
  /** Upstream model name, for local token counting and the synthesised usage chunk. */
  model: string;
  /** The client itself sent `stream_options.include_usage: true`. */
  clientIncludeUsage: boolean;
  /** Locally estimated prompt tokens, used when the upstream reports no usage. */
  promptTokens: number;
  /** Appended to error messages as " (request id: …)". */
  requestId?: string;
  /** Clock for `firstByteAt`/`firstTokenAt` (default Date.now). */
  now?: () => number;
  /**
   * For upstreams whose events are not OpenAI chunks: turn one parsed event payload into an
   * OpenAI chunk object, or null to drop it. The result is serialised with JSON.stringify.
   */
  mapEvent?: (data: unknown) => Record<string, unknown> | null;
  /**
   * Nobody reads the relay's output (a passed-through stream: the caller gets the upstream's own
   * bytes): events are read for the bookkeeping only, and nothing is serialised for the client.
   */
  readOnly?: boolean;
}

/** Unparsed chunks are read once the buffers they sit in reach this size. */
const DEFER_LIMIT = 256 * 1024;
/** An upstream that sends this much without finishing an event is cut off. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;
const LF_LF = Buffer.from("\n\n");

const asBuffer = (chunk: Uint8Array | string): Buffer =>
  typeof chunk === "string"
    ? Buffer.from(chunk)
    : Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

export class OpenAIStreamRelay {
  private readonly opts: OpenAIStreamOptions;
  private readonly now: () => number;
  /** The full SSE reader, made when first needed (plain streams never need it). */
  private fullReader: SseReader | null = null;
  /** Output not yet returned, in order: byte ranges of the input and text. */
  private pieces: Array<Uint8Array | string> = [];
  private out = "";
  private finished = false;
  private emitted = false;
  private reason: StreamEndReason | null = null;
  private upstreamError: UpstreamError | null = null;

  /** Reading plain events from the bytes; false once the full reader has taken over. */
  private raw: boolean;
  private rawStarted = false;
  /** Bytes after the last complete event. */
  private rawTail: Buffer | null = null;
  /**
   * Chunks after rawTail that cannot end its event (no blank line, no CR), kept unread: a long
   * event is then joined and read once, not copied and searched again with every chunk.
   */
  private rawMore: Buffer[] = [];
  private rawMoreBytes = 0;
  /** Where the next `"usage"` / `"error"` is in the buffer being read (-1 none, -2 not looked). */
  private nextUsage = -2;
  private nextError = -2;
  /** Forwarded chunks not yet parsed, and the bytes of the buffers they keep alive. */
  private deferred: Buffer[] = [];
  private deferredBytes = 0;
  private deferredBuffer: Buffer | null = null;

  private content = "";
  private reasoning = "";
  private toolText = "";
  private readonly toolCalls = new Set<string>();
  private upstreamUsage: Usage | null = null;
  private usageForwarded = false;
  private localUsage: Usage | null = null;
  private firstByte: number | null = null;
  private firstToken: number | null = null;
  private finish_reason: string | null = null;
  private chunkId = "";
  private chunkCreated = 0;
  private chunkModel = "";
  private events = 0;
  private malformed = 0;

  constructor(opts: OpenAIStreamOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.raw = !opts.mapEvent;
  }

  private get reader(): SseReader {
    return (this.fullReader ??= new SseReader({
      onEvent: (e) => this.onEvent(e),
      onOverflow: () => this.fail("overflow", null),
    }));
  }

  /**
   * One event whose framing the caller has read already (its `event:` name, and its data as one
   * line), at an event boundary of the bytes fed so far: read as the SSE reader would hand it on.
   * Returns the bytes to write to the client now, or null.
   */
  event(name: string | undefined, data: string): Uint8Array | null {
    if (this.finished) return null;
    if (this.firstByte === null) this.firstByte = this.now();
    this.onEvent({ event: name, data, id: undefined });
    return this.flush();
  }

  /** Feed upstream bytes; returns the bytes to write to the client now, or null. */
  transform(chunk: Uint8Array | string): Uint8Array | null {
    if (this.finished) return null;
    this.feed(chunk);
    return this.flush();
  }

  /**
   * Feed upstream bytes of a body that is not SSE through its framing (providers/types.ts), which
   * hands this relay the events; returns the bytes to write to the client now, or null.
   */
  transformFramed(framing: StreamFraming, chunk: Uint8Array): Uint8Array | null {
    if (this.finished) return null;
    framing.push(chunk, this.framedSink);
    return this.flush();
  }

  /** The framed body ended: its framing's last events, as transformFramed (then call finish). */
  endFramed(framing: StreamFraming): Uint8Array | null {
    if (this.finished) return null;
    framing.end(this.framedSink);
    return this.flush();
  }

  private feed(chunk: Uint8Array | string): void {
    if (this.firstByte === null && chunk.length > 0) this.firstByte = this.now();
    if (this.raw) this.readRaw(asBuffer(chunk));
    else this.reader.feed(chunk);
  }

  /** What a framing hands its events to: each event's data read as an SSE event's would be. */
  private readonly framedSink: EventSink = {
    event: (data) => {
      if (this.finished) return;
      if (this.firstByte === null && data.length > 0) this.firstByte = this.now();
      this.onEvent({ event: undefined, data, id: undefined });
    },
    sse: (text) => {
      if (!this.finished) this.feed(text);
    },
  };

  /**
   * The upstream body ended. Returns the final bytes (synthesised usage chunk if needed, then
   * [DONE]), or null when the stream was already finished.
   */
  finish(): Uint8Array | null {
    if (this.finished) return null;
    if (this.rawTail) {
      // The last event had no blank line after it.
      const tail = this.rawMore.length > 0 ? Buffer.concat([this.rawTail, ...this.rawMore]) : this.rawTail;
      this.rawTail = null;
      this.rawMore = [];
      this.rawMoreBytes = 0;
      this.reader.feed(tail);
    }
    this.fullReader?.end();
    if (!this.finished) this.complete(this.reason ?? "eof");
    return this.flush();
  }

  /**
   * The upstream connection broke or went idle. Emits an OpenAI error event and [DONE]. If
   * `started` is false nothing reached the client yet and the caller may retry elsewhere instead
   * of writing these bytes.
   */
  abort(reason: "interrupted" | "timeout" | "shutdown"): Uint8Array | null {
    if (this.finished) return null;
    this.fail(reason, { ...ABORTS[reason] });
    return this.flush();
  }

  /** [DONE] has been emitted; feeding more input does nothing. */
  get done(): boolean {
    return this.finished;
  }
  /** Some bytes were returned for the client (the 200 status is committed once they are written). */
  get started(): boolean {
    return this.emitted;
  }
  get endReason(): StreamEndReason | null {
    return this.reason;
  }
  /** The upstream's mid-stream error, or the interruption, as an error object. */
  get error(): UpstreamError | null {
    return this.upstreamError;
  }
  get sawUpstreamUsage(): boolean {
    return this.upstreamUsage !== null;
  }
  /** Time the first upstream byte arrived. */
  get firstByteAt(): number | null {
    return this.firstByte;
  }
  /** Time the first content (text, reasoning or tool-call) delta arrived: the `frt` to log. */
  get firstTokenAt(): number | null {
    return this.firstToken;
  }
  /** Concatenated content deltas (choice text for completions). */
  get deliveredText(): string {
    this.readDeferred();
    return this.content;
  }
  get reasoningText(): string {
    this.readDeferred();
    return this.reasoning;
  }
  get toolCallCount(): number {
    this.readDeferred();
    return this.toolCalls.size;
  }
  get finishReason(): string | null {
    this.readDeferred();
    return this.finish_reason;
  }
  /**
   * Counts of upstream events parsed and of data payloads that were not JSON (dropped; one that
   * looked like a chunk, `{…}`, and was held unparsed had been forwarded before it was read).
   */
  get eventCounts(): { events: number; malformed: number } {
    this.readDeferred();
    return { events: this.events, malformed: this.malformed };
  }

  /**
   * The usage to bill: the upstream's when it reported any tokens, else prompt = the local
   * estimate and completion = tokens of everything delivered (content, reasoning, tool-call names
   * and arguments) + 7 per tool call.
   */
  get usage(): Usage {
    if (this.upstreamUsage) return this.upstreamUsage;
    if (this.localUsage && this.finished) return this.localUsage;
    const u = simpleUsage(this.opts.promptTokens, this.countCompletionLocally());
    if (this.finished) this.localUsage = u;
    return u;
  }

  private countCompletionLocally(): number {
    this.readDeferred();
    return countCompletionTokens(this.content + this.reasoning + this.toolText, this.toolCalls.size, this.opts.model);
  }

  private flush(): Uint8Array | null {
    if (this.opts.readOnly) {
      this.out = "";
      if (this.pieces.length > 0) this.pieces = [];
      return null;
    }
    const pieces = this.pieces;
    if (this.out !== "") {
      pieces.push(this.out);
      this.out = "";
    }
    if (pieces.length === 0) return null;
    this.pieces = [];
    this.emitted = true;
    if (pieces.length === 1) return typeof pieces[0] === "string" ? encodeSse(pieces[0]) : pieces[0]!;
    return Buffer.concat(pieces.map((p) => (typeof p === "string" ? encodeSse(p) : p)));
  }

  /** Plain events straight from the bytes; see the header. */
  private readRaw(chunk: Buffer): void {
    if (this.rawTail && this.rawStarted) {
      if (chunk.length === 0) return; // kept, it would hide the last byte before it from the check below
      const last = this.rawMore.length > 0 ? this.rawMore[this.rawMore.length - 1]! : this.rawTail;
      const mayEnd = chunk.indexOf(LF_LF) !== -1 || (last[last.length - 1] === 0x0a && chunk[0] === 0x0a) || chunk.indexOf(0x0d) !== -1;
      if (!mayEnd) {
        this.rawMore.push(chunk);
        this.rawMoreBytes += chunk.length;
        if (this.rawTail.length + this.rawMoreBytes > MAX_EVENT_BYTES) {
          this.rawTail = null;
          this.rawMore = [];
          this.fail("overflow", null);
        }
        return;
      }
    }
    let buf = this.rawTail
      ? Buffer.concat(this.rawMore.length > 0 ? [this.rawTail, ...this.rawMore, chunk] : [this.rawTail, chunk])
      : chunk;
    this.rawTail = null;
    this.rawMore = [];
    this.rawMoreBytes = 0;
    if (!this.rawStarted) {
      if (buf.length < 3 && buf[0] === 0xef && (buf.length < 2 || buf[1] === 0xbb)) {
        this.rawTail = buf; // maybe the start of a byte order mark
        return;
      }
      this.rawStarted = true;
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    }
    // Searched as a one-byte string (a copy, but String.indexOf is far cheaper than a call per
    // Buffer.indexOf); every byte the searches look for is ASCII, so offsets are byte offsets.
    const text = buf.toString("latin1");
    if (text.indexOf("\r") !== -1) {
      // CR line ends: the full reader reads everything from here on.
      this.raw = false;
      this.reader.feed(buf);
      return;
    }
    this.nextUsage = this.nextError = -2;
    let start = 0;
    let keptFrom = -1; // start of a run of events forwarded exactly as they came
    for (let end = text.indexOf("\n\n", start); end !== -1 && !this.finished; end = text.indexOf("\n\n", start)) {
      if (this.rawEvent(buf, text, start, end)) {
        if (keptFrom < 0) keptFrom = start;
      } else {
        if (keptFrom >= 0) this.pieces.push(buf.subarray(keptFrom, start));
        keptFrom = -1;
        if (this.out !== "") {
          this.pieces.push(this.out);
          this.out = "";
        }
      }
      start = end + 2;
    }
    if (keptFrom >= 0) this.pieces.push(buf.subarray(keptFrom, start));
    if (this.finished || start === buf.length) return;
    this.rawTail = buf.subarray(start);
    if (this.rawTail.length > MAX_EVENT_BYTES) this.fail("overflow", null);
  }

  /** One event, `buf[start, end)` (`text` is `buf` as latin1); true when forwarded exactly as it came. */
  private rawEvent(buf: Buffer, text: string, start: number, end: number): boolean {
    if (end === start) return false; // a blank line too many
    const p = start + 6;
    if (end <= p || !text.startsWith("data: ", start) || text.indexOf("\n", p) !== end) {
      // Comments, other fields, multi-line data: the full reader, this event alone.
      this.reader.feed(buf.subarray(start, end + 2));
      return false;
    }
    if (text.charCodeAt(p) === 0x7b && text.charCodeAt(end - 1) === 0x7d && !this.mayCarry(text, p, end)) {
      if (this.firstToken !== null) {
        this.defer(buf, p, end);
        return true;
      }
      // Before the first token: a chunk whose bytes say for sure whether it holds one is not
      // parsed either; its arrival time is the first token's when it does.
      const token = plainTokenCheck(text, p, end, this.opts.mode);
      if (token !== null) {
        if (token) this.firstToken = this.now();
        this.defer(buf, p, end);
        return true;
      }
    }
    const data = buf.toString("utf8", p, end);
    const json = this.payload(data, undefined);
    if (json === data && this.out === "") return true;
    if (json !== null) this.out += sseJson(json);
    return false;
  }

  /** Whether `text[p, end)` mentions `"usage"` or `"error"` (a chunk that must be read now). */
  private mayCarry(text: string, p: number, end: number): boolean {
    if (this.nextUsage !== -1 && this.nextUsage < p) this.nextUsage = text.indexOf('"usage"', p);
    if (this.nextUsage !== -1 && this.nextUsage < end) return true;
    if (this.nextError !== -1 && this.nextError < p) this.nextError = text.indexOf('"error"', p);
    return this.nextError !== -1 && this.nextError < end;
  }

  private defer(buf: Buffer, p: number, end: number): void {
    this.deferred.push(buf.subarray(p, end));
    if (buf !== this.deferredBuffer) {
      this.deferredBuffer = buf;
      this.deferredBytes += buf.length;
      if (this.deferredBytes > DEFER_LIMIT) this.readDeferred();
    }
  }

  /** Reads the forwarded, unparsed chunks for their bookkeeping. */
  private readDeferred(): void {
    const list = this.deferred;
    if (list.length === 0) return;
    this.deferred = [];
    this.deferredBytes = 0;
    this.deferredBuffer = null;
    for (const b of list) this.payload(b.toString("utf8"), undefined);
  }

  private onEvent(e: SseEvent): void {
    if (this.finished) return;
    if (e.data.indexOf("\n") === -1) {
      const text = this.payload(e.data, e.event);
      if (text !== null) this.out += sseJson(text);
      return;
    }
    for (const data of splitDataLines(e.data)) {
      if (this.finished) return;
      const text = this.payload(data, e.event);
      if (text !== null) this.out += sseJson(text);
    }
  }

  /**
   * Bookkeeping for one data payload. Returns the JSON text to forward for it (its own, or the
   * mapped one), or null when nothing is forwarded (dropped, or it ended the stream).
   */
  private payload(raw: string, eventName: string | undefined): string | null {
    const data = raw.trim();
    if (data === "") return null;
    if (data === "[DONE]") {
      this.complete("done");
      return null;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.malformed++;
      return null;
    }
    this.events++;
    // Chunks held unparsed came first: read them before one that may carry choices, so content
    // is put together in order (a usage-only chunk, `choices: []`, can go first).
    if (this.deferred.length > 0 && !(isObj(parsed) && Array.isArray(parsed.choices) && parsed.choices.length === 0)) this.readDeferred();
    let text = data;
    if (this.opts.mapEvent) {
      const mapped = this.opts.mapEvent(parsed);
      if (!mapped) return null;
      parsed = mapped;
      if (!this.opts.readOnly) text = JSON.stringify(mapped);
    }
    if (!isObj(parsed)) {
      this.malformed++;
      return null;
    }
    const chunk = parsed;
    if (eventName === "error" || (chunk.error !== undefined && chunk.error !== null && chunk.choices === undefined)) {
      const err = errorFromJson(500, eventName === "error" && chunk.error === undefined ? { error: chunk } : chunk);
      this.fail(
        "upstream_error",
        err ?? { status: 500, message: "upstream returned an error", type: UPSTREAM_ERROR_TYPE, code: null, param: null },
      );
      return null;
    }
    // The first chunk's id, creation time and model (for a synthesised usage chunk): not from a
    // later one while earlier chunks wait unparsed.
    if (this.deferred.length === 0) {
      if (this.chunkId === "" && typeof chunk.id === "string") this.chunkId = chunk.id;
      if (this.chunkCreated === 0 && typeof chunk.created === "number") this.chunkCreated = chunk.created;
      if (this.chunkModel === "" && typeof chunk.model === "string") this.chunkModel = chunk.model;
    }

    let usageHere = false;
    if (isObj(chunk.usage)) usageHere = this.captureUsage(chunk.usage);
    const choices = chunk.choices;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        if (!isObj(choice)) continue;
        this.readChoice(choice);
        // Moonshot (and some clones) put the usage inside the last choice.
        if (isObj(choice.usage) && this.captureUsage(choice.usage)) usageHere = true;
      }
      if (choices.length === 0 && usageHere && !this.opts.clientIncludeUsage) return null; // usage-only chunk nobody asked for
    }
    if (usageHere) this.usageForwarded = true;
    return text;
  }

  private captureUsage(raw: Obj): boolean {
    const u = normalizeUsage(raw);
    if (!hasTokens(u)) return false;
    this.upstreamUsage = u;
    return true;
  }

  private readChoice(choice: Obj): void {
    let got = false;
    if (this.opts.mode === "completions") {
      if (typeof choice.text === "string" && choice.text !== "") {
        this.content += choice.text;
        got = true;
      }
    } else {
      const delta = isObj(choice.delta) ? choice.delta : isObj(choice.message) ? choice.message : null;
      if (delta) {
        if (typeof delta.content === "string" && delta.content !== "") {
          this.content += delta.content;
          got = true;
        }
        const r =
          typeof delta.reasoning_content === "string"
            ? delta.reasoning_content
            : typeof delta.reasoning === "string"
              ? delta.reasoning
              : "";
        if (r !== "") {
          this.reasoning += r;
          got = true;
        }
        if (Array.isArray(delta.tool_calls)) {
          const ci = typeof choice.index === "number" ? choice.index : 0;
          for (const tc of delta.tool_calls) {
            if (!isObj(tc)) continue;
            const key = `${ci}:${typeof tc.index === "number" ? tc.index : typeof tc.id === "string" ? tc.id : this.toolCalls.size}`;
            this.toolCalls.add(key);
            const fn = isObj(tc.function) ? tc.function : null;
            if (fn) {
              if (typeof fn.name === "string") this.toolText += fn.name;
              if (typeof fn.arguments === "string") this.toolText += fn.arguments;
            }
            got = true;
          }
        }
        if (isObj(delta.function_call)) {
          const fc = delta.function_call;
          if (this.toolCalls.size === 0) this.toolCalls.add("fc");
          if (typeof fc.name === "string") this.toolText += fc.name;
          if (typeof fc.arguments === "string") this.toolText += fc.arguments;
          got = true;
        }
      }
    }
    if (got && this.firstToken === null) this.firstToken = this.now();
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") this.finish_reason = choice.finish_reason;
  }

  /** End normally: a synthesised usage chunk if the client wants one and got none, then [DONE]. */
  private complete(reason: StreamEndReason): void {
    if (this.finished) return;
    this.reason = reason;
    if (this.opts.clientIncludeUsage && !this.usageForwarded) this.out += sseJson(this.usageChunk());
    this.out += SSE_DONE_TEXT;
    this.finished = true;
  }

  /** End with an error event then [DONE]. */
  private fail(reason: StreamEndReason, err: UpstreamError | null): void {
    if (this.finished) return;
    this.reason = reason;
    const e = err ?? {
      status: 502,
      message: "upstream stream too large to buffer",
      type: LOCAL_ERROR_TYPE,
      code: "stream_overflow",
      param: null,
    };
    this.upstreamError = e;
    // The upstream's own words can carry its key, URL or hosts: the client sees them masked.
    const shown = maskSensitiveText(e.message);
    const message = this.opts.requestId ? `${shown} (request id: ${this.opts.requestId})` : shown;
    this.out += sseJson(JSON.stringify({ error: { message, type: e.type, param: e.param, code: e.code } }));
    this.out += SSE_DONE_TEXT;
    this.finished = true;
  }

  private usageChunk(): string {
    this.readDeferred(); // the first chunk's id and model
    const u = this.usage;
    const usage: Obj = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.total_tokens };
    if (u.cached_tokens > 0 || u.audio_input_tokens > 0) {
      usage.prompt_tokens_details = { cached_tokens: u.cached_tokens, audio_tokens: u.audio_input_tokens };
    }
    if (u.reasoning_tokens > 0 || u.audio_output_tokens > 0) {
      usage.completion_tokens_details = { reasoning_tokens: u.reasoning_tokens, audio_tokens: u.audio_output_tokens };
    }
    const chat = this.opts.mode === "chat";
    return JSON.stringify({
      id: this.chunkId || (chat ? "chatcmpl-" : "cmpl-") + (this.opts.requestId ?? "qiao"),
      object: chat ? "chat.completion.chunk" : "text_completion",
      created: this.chunkCreated || Math.floor(this.now() / 1000),
      model: this.chunkModel || this.opts.model,
      choices: [],
      usage,
    });
  }
}

const CHAT_TEXT_KEYS = ['"content"', '"reasoning_content"', '"reasoning"'];
const COMPLETION_TEXT_KEYS = ['"text"'];
const CHAT_CALL_KEYS = ['"tool_calls"', '"function_call"'];

/**
 * Whether the chunk `text[p, end)` holds a token (content, reasoning or a tool call), read from
 * its bytes: true or false when that is certain, null when the chunk must be parsed to tell.
 * Certain only without a backslash (then no string can hide a quote, and every `"content"`
 * followed by `:` is a key) and without tool calls (their shapes vary): a text key whose value
 * is `""` or `null` holds nothing, one whose value is a non-empty string holds a token, any
 * other value is unsure.
 */
export function plainTokenCheck(whole: string, p: number, end: number, mode: "chat" | "completions"): boolean | null {
  // The searches stop at the chunk's end: on the whole text each would read to the end of
  // everything that arrived with it, once per chunk (a slice shares the text's bytes).
  const text = whole.slice(p, end);
  const length = text.length;
  if (text.indexOf("\\") !== -1) return null;
  if (mode === "chat") {
    for (const key of CHAT_CALL_KEYS) if (text.indexOf(key) !== -1) return null;
  }
  let token = false;
  for (const key of mode === "chat" ? CHAT_TEXT_KEYS : COMPLETION_TEXT_KEYS) {
    for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
      let i = skipSpaces(text, at + key.length, length);
      if (text.charCodeAt(i) !== 0x3a) continue; // a value that happens to read "content"
      i = skipSpaces(text, i + 1, length);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        if (text.charCodeAt(i + 1) !== 0x22) token = true; // a non-empty string
      } else if (!text.startsWith("null", i)) return null;
    }
  }
  return token;
}

function skipSpaces(text: string, i: number, end: number): number {
  for (let c = text.charCodeAt(i); i < end && (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d); c = text.charCodeAt(++i));
  return i;
}

/**
 * The relay as a web TransformStream (for `new Response(upstream.body.pipeThrough(...))`).
 * Upstream read errors become an error event + [DONE] instead of a torn response.
 */
export function openAIStreamTransform(relay: OpenAIStreamRelay): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const out = relay.transform(chunk);
      if (out) controller.enqueue(out);
    },
    flush(controller) {
      const out = relay.finish();
      if (out) controller.enqueue(out);
    },
  });
}

/**
 * Pipe a web ReadableStream of upstream bytes through the relay, turning a read failure into
 * `abort("interrupted")` (pipeThrough alone would error the client stream instead).
 */
export function relayReadableStream(upstream: ReadableStream<Uint8Array>, relay: OpenAIStreamRelay): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            const tail = relay.finish();
            if (tail) controller.enqueue(tail);
            controller.close();
            return;
          }
          const out = relay.transform(value);
          if (relay.done) {
            if (out) controller.enqueue(out);
            controller.close();
            void reader.cancel().catch(() => {});
            return;
          }
          if (out) {
            controller.enqueue(out);
            return;
          }
        }
      } catch {
        const tail = relay.abort("interrupted");
        if (tail) controller.enqueue(tail);
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
