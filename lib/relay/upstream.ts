// One HTTP exchange with an upstream, over undici's dispatcher API.
//
// `undici.request` wraps every answer in a Readable stream with its own promises and events; for
// a relay that either collects a small JSON answer or forwards SSE chunks as they come, that
// machinery cost more CPU per request than everything else undici does (bench/HISTORY.md). Here the
// dispatcher's callbacks feed the relay directly: whole answers are collected into one Buffer,
// streams are pushed chunk by chunk into a sink, with backpressure through pause/resume.
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

export interface UpstreamSink {
  /** One body chunk. Return false to pause the upstream until `UpstreamExchange.resume()`. */
  data(chunk: Buffer): boolean;
  /** The body ended. */
  end(): void;
  /** The exchange failed after the headers (connection broke, body timeout, our own abort). */
  error(error: Error): void;
}

export interface UpstreamSend {
  method: string;
  /** Absolute http(s) URL. */
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/**
 * What the pipeline reads an upstream answer through: an UpstreamExchange, or a transport an
 * adapter opens itself (UpstreamRequest.open).
 */
export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  /** Resolves once the status and headers are in; rejects if the exchange fails before them. */
  readonly response: Promise<void>;
  /** The whole body (at most `limit` bytes, else the exchange is aborted and this rejects). */
  bytes(limit?: number): Promise<Buffer>;
  /** The whole body as UTF-8 text, or "" if it cannot be read. */
  text(limit?: number): Promise<string>;
  /** Hands the body to `sink` as it arrives. */
  pipe(sink: UpstreamSink): void;
  /** Continue after the sink's `data` returned false. */
  resume(): void;
  /** Stop the exchange. Harmless once it is over. */
  abort(reason?: Error): void;
}

/** The upstream answered more than this without finishing a whole (non-streamed) body. */
export class UpstreamBodyTooLarge extends Error {
  constructor(limit: number) {
    super(`upstream response larger than ${limit} bytes`);
    this.name = "UpstreamBodyTooLarge";
  }
}

/** Splits an absolute URL into undici's origin + path (path keeps the query string). */
export function splitUrl(url: string): { origin: string; path: string } {
  const scheme = url.indexOf("://");
  if (scheme > 0) {
    const start = scheme + 3;
    const slash = url.indexOf("/", start);
    const query = url.indexOf("?", start);
    const end = slash < 0 ? (query < 0 ? url.length : query) : query < 0 ? slash : Math.min(slash, query);
    const path = url.slice(end);
    // Plain ASCII, no credentials, no fragment: the common case needs no URL parser.
    if (url.lastIndexOf("@", end) < start && SAFE_PATH.test(path)) {
      return { origin: url.slice(0, end), path: path === "" ? "/" : path[0] === "?" ? `/${path}` : path };
    }
  }
  const u = new URL(url);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}
const SAFE_PATH = /^[!-"$-~]*$/;

type Settle<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

/**
 * Start with `UpstreamExchange.send`; `await exchange.response` for the status and headers; then
 * either `await exchange.bytes()` / `text()` for the whole body, or `exchange.pipe(sink)` to
 * receive it as it arrives. Body bytes that arrive before either call (the usual case: a small
 * answer arrives with its headers in one read) are held until then.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler, Exchange {
  status = 0;
  headers: IncomingHttpHeaders = {};
  /** Resolves once the status and headers are in; rejects if the exchange fails before them. */
  readonly response: Promise<void>;

  private head!: Settle<void>;
  private controller: Dispatcher.DispatchController | null = null;
  private pendingAbort: Error | null = null;
  private started = false;
  private state: "open" | "ended" | "failed" = "open";
  private failure: Error | null = null;
  /** Chunks not yet handed to anyone (null once a sink has taken everything). */
  private held: Buffer[] | null = [];
  private heldBytes = 0;
  private limit = Infinity;
  private sink: UpstreamSink | null = null;
  private paused = false;
  private whole: Settle<Buffer> | null = null;

  private constructor() {
    this.response = new Promise<void>((resolve, reject) => (this.head = { resolve, reject }));
  }

  static send(dispatcher: Dispatcher, req: UpstreamSend): UpstreamExchange {
    const exchange = new UpstreamExchange();
    const { origin, path } = splitUrl(req.url);
    dispatcher.dispatch({ origin, path, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body }, exchange);
    return exchange;
  }

  /** The whole body (at most `limit` bytes, else the exchange is aborted and this rejects). */
  bytes(limit = Infinity): Promise<Buffer> {
    this.limit = limit;
    if (this.heldBytes > limit) {
      const error = new UpstreamBodyTooLarge(limit);
      this.abort(error);
      this.held = [];
      this.heldBytes = 0;
      return Promise.reject(error);
    }
    if (this.state === "ended") return Promise.resolve(this.takeHeld());
    if (this.state === "failed") return Promise.reject(this.failure!);
    return new Promise<Buffer>((resolve, reject) => (this.whole = { resolve, reject }));
  }

  /** The whole body as UTF-8 text, or "" if it cannot be read (error bodies, mostly). */
  async text(limit = Infinity): Promise<string> {
    try {
      return (await this.bytes(limit)).toString("utf8");
    } catch {
      return "";
    }
  }

  /** Hands the body to `sink`: what is held now at once, the rest as it arrives. */
  pipe(sink: UpstreamSink): void {
    this.sink = sink;
    this.flushHeld();
  }

  /** Continue after the sink's `data` returned false. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.held) this.flushHeld();
    if (!this.paused && this.state === "open") this.controller?.resume();
  }

  /** Stop the exchange (the client left, a timeout, enough read). Harmless once it is over. */
  abort(reason: Error = new Error("upstream request aborted")): void {
    if (this.state !== "open") return;
    if (this.controller) this.controller.abort(reason);
    else this.pendingAbort = reason;
  }

  /** The body has been read to its end. */
  get ended(): boolean {
    return this.state === "ended";
  }

  // --- undici's dispatch handler ---------------------------------------------------------------

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx informational: the real answer follows
    this.status = statusCode;
    this.headers = headers;
    this.started = true;
    this.head.resolve();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.held === null) {
      if (!this.sink!.data(chunk)) {
        this.paused = true;
        controller.pause();
      }
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes > this.limit) controller.abort(new UpstreamBodyTooLarge(this.limit));
  }

  onResponseEnd(): void {
    this.state = "ended";
    if (this.held === null) this.sink!.end();
    else if (this.whole) this.whole.resolve(this.takeHeld());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.state !== "open") return;
    this.state = "failed";
    this.failure = error;
    if (!this.started) this.head.reject(error);
    else if (this.held === null) this.sink!.error(error);
    else if (this.whole) this.whole.reject(error);
  }

  // ---------------------------------------------------------------------------------------------

  private takeHeld(): Buffer {
    const held = this.held ?? [];
    this.held = null;
    return held.length === 1 ? held[0]! : Buffer.concat(held, this.heldBytes);
  }

  private flushHeld(): void {
    const held = this.held!;
    const sink = this.sink!;
    while (held.length > 0 && !this.paused) {
      const chunk = held.shift()!;
      this.heldBytes -= chunk.length;
      if (!sink.data(chunk)) {
        this.paused = true;
        this.controller?.pause();
      }
    }
    if (held.length > 0) return;
    this.held = null;
    if (this.state === "ended") sink.end();
    else if (this.state === "failed") sink.error(this.failure!);
  }
}

/**
 * Opens the exchange an adapter's request describes: its own transport when it has one
 * (UpstreamRequest.open), else one HTTP request. The relay's attempts and the channel test both
 * send through here.
 */
export function openExchange(
  dispatcher: Dispatcher,
  upstream: UpstreamSend & { open?(dispatcher: Dispatcher): Exchange },
  headers = upstream.headers,
): Exchange {
  if (upstream.open) return upstream.open(dispatcher);
  return UpstreamExchange.send(dispatcher, { method: upstream.method, url: upstream.url, headers, body: upstream.body });
}
