// Spark's answer over a WebSocket, presented to the pipeline as an HTTP-like Exchange:
// - a stream: status 200 at the first frame, content-type text/event-stream, each frame as
//   `data: {frame}\n\n` (the adapter's streamEvent converts them);
// - a whole answer: the frames collected and merged into one frame-shaped JSON at the last one;
// - a frame with code ≠ 0 before any answer: an HTTP-like error status with OpenAI's error body;
// - a refused handshake (Spark answers 401/403 to a bad signature or clock): that status and body,
//   read off the upgrade request through an interceptor on the channel's dispatcher (undici's
//   WebSocket itself reports only "non-101 status").
// The socket goes through the channel's dispatcher, so its proxy and address rules apply.
import type { IncomingHttpHeaders } from "node:http";
import { type Dispatcher, WebSocket } from "undici";
import { env } from "@/lib/env";
import { sseJson } from "../../openai/sse";
import type { Exchange, UpstreamSink } from "../../upstream";
import { isObj, type Obj } from "@/lib/obj";
import { num } from "../convert-shared";
import { mergeSparkFrames, sparkFrameError } from "./convert";

/** A refused handshake's body is kept up to this size (its message is all that matters). */
const HANDSHAKE_BODY_LIMIT = 64 * 1024;

type Settle<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

/** Spark's error codes → the HTTP status the relay treats them as. */
function statusForCode(code: number): number {
  if (code === 11200) return 403; // no licence for this app / capability
  if (code >= 11201 && code <= 11203) return 429; // daily quota, QPS, concurrency
  if (code === 10013 || code === 10014 || code === 10019 || code === 10907 || (code >= 10160 && code <= 10163)) return 400;
  return 500;
}

function closedError(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause ? { cause } : undefined), { code: "UND_ERR_SOCKET" });
}

export class SparkExchange implements Exchange {
  status = 0;
  headers: IncomingHttpHeaders = {};
  readonly response: Promise<void>;

  private head!: Settle<void>;
  private headDone = false;
  private state: "open" | "ended" | "failed" = "open";
  private failure: Error | null = null;
  private held: Buffer[] = [];
  private sink: UpstreamSink | null = null;
  private whole: Settle<Buffer> | null = null;
  private readonly frames: Obj[] = [];
  private handshake: { status: number; headers: IncomingHttpHeaders; body: Buffer[]; size: number } | null = null;
  private socketError: unknown = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly ws: WebSocket;

  constructor(
    dispatcher: Dispatcher,
    url: string,
    frame: string,
    private readonly stream: boolean,
  ) {
    this.response = new Promise<void>((resolve, reject) => (this.head = { resolve, reject }));
    // Nobody may be waiting when an abort rejects it (the pipeline awaits it right away otherwise).
    this.response.catch(() => {});
    const observed = dispatcher.compose((dispatch) => (opts, handler) => dispatch(opts, this.observe(handler)));
    this.ws = new WebSocket(url, { dispatcher: observed });
    this.ws.binaryType = "arraybuffer";
    this.ws.addEventListener("open", () => this.ws.send(frame));
    this.ws.addEventListener("message", (e) => {
      const data = e.data;
      this.onFrame(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer).toString("utf8"));
    });
    this.ws.addEventListener("error", (e) => {
      this.socketError = (e as { error?: unknown }).error ?? null;
    });
    this.ws.addEventListener("close", (e) => this.onClosed(e.code));
    if (env.RELAY_TIMEOUT > 0) {
      this.timer = setTimeout(
        () => this.abort(Object.assign(new Error("Spark did not answer in time"), { code: "UND_ERR_HEADERS_TIMEOUT" })),
        env.RELAY_TIMEOUT * 1000,
      );
      this.timer.unref();
    }
  }

  bytes(limit = Infinity): Promise<Buffer> {
    if (this.state === "failed") return Promise.reject(this.failure!);
    if (this.state === "ended") {
      const body = this.take();
      return body.length > limit ? Promise.reject(new Error(`upstream response larger than ${limit} bytes`)) : Promise.resolve(body);
    }
    return new Promise<Buffer>((resolve, reject) => (this.whole = { resolve, reject }));
  }

  async text(limit = Infinity): Promise<string> {
    try {
      return (await this.bytes(limit)).toString("utf8");
    } catch {
      return "";
    }
  }

  pipe(sink: UpstreamSink): void {
    this.sink = sink;
    for (const chunk of this.held) sink.data(chunk);
    this.held = [];
    if (this.state === "ended") sink.end();
    else if (this.state === "failed") sink.error(this.failure!);
  }

  /** Frames are small and come at the model's pace: there is nothing to pause. */
  resume(): void {}

  abort(reason: Error = new Error("upstream request aborted")): void {
    if (this.state !== "open") return;
    this.fail(reason);
  }

  // ---------------------------------------------------------------------------------------------

  /** Wraps the upgrade request's handler: a non-101 answer is read whole and kept, not passed on. */
  private observe(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
    return {
      onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
      onRequestUpgrade: (c, status, headers, socket) => handler.onRequestUpgrade?.(c, status, headers, socket),
      onResponseStart: (c, status, headers, message) => {
        if (status < 200) return handler.onResponseStart?.(c, status, headers, message);
        this.handshake = { status, headers, body: [], size: 0 };
      },
      onResponseData: (c, chunk) => {
        const h = this.handshake;
        if (!h) return handler.onResponseData?.(c, chunk);
        if (h.size + chunk.length <= HANDSHAKE_BODY_LIMIT) {
          h.body.push(chunk);
          h.size += chunk.length;
        }
      },
      onResponseEnd: (c, trailers) => {
        const h = this.handshake;
        if (!h) return handler.onResponseEnd?.(c, trailers);
        handler.onResponseError?.(c, new Error(`WebSocket handshake refused with status ${h.status}`));
      },
      onResponseError: (c, error) => handler.onResponseError?.(c, error),
    };
  }

  private onFrame(text: string): void {
    if (this.state !== "open") return;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      frame = null;
    }
    const error = sparkFrameError(frame);
    const last = error !== null || (isObj(frame) && isObj(frame.header) && (num(frame.header.status) ?? 0) === 2);
    if (this.stream) {
      if (!this.headDone) {
        if (error) {
          this.present(error);
          return;
        }
        this.start(200, "text/event-stream");
      }
      this.push(Buffer.from(sseJson(error ? JSON.stringify(frame ?? error) : text)));
      if (last) this.end();
      return;
    }
    if (error) {
      this.present(error);
      return;
    }
    this.frames.push(frame as Obj);
    if (!last) return;
    this.start(200, "application/json");
    this.push(Buffer.from(JSON.stringify(mergeSparkFrames(this.frames))));
    this.end();
  }

  private onClosed(code: number): void {
    if (this.state !== "open") return;
    const h = this.handshake;
    if (!this.headDone && h) {
      this.status = h.status;
      this.headers = { ...h.headers };
      this.headDone = true;
      this.clearTimer();
      this.head.resolve();
      this.held.push(Buffer.concat(h.body));
      this.end();
      return;
    }
    this.fail(closedError(`Spark closed the connection before the answer ended (code ${code})`, this.socketError));
  }

  /** An error frame's OpenAI error body in place of the answer, with a status for its code. */
  private present(body: Obj): void {
    this.start(statusForCode(num((body.error as Obj).code) ?? 0), "application/json");
    this.push(Buffer.from(JSON.stringify(body)));
    this.end();
  }

  private start(status: number, contentType: string): void {
    this.status = status;
    this.headers = { "content-type": contentType };
    this.headDone = true;
    this.clearTimer();
    this.head.resolve();
  }

  private push(chunk: Buffer): void {
    if (this.sink) this.sink.data(chunk);
    else this.held.push(chunk);
  }

  private end(): void {
    this.state = "ended";
    this.close();
    if (this.sink) this.sink.end();
    else if (this.whole) this.whole.resolve(this.take());
  }

  private fail(error: Error): void {
    this.state = "failed";
    this.failure = error;
    this.close();
    if (!this.headDone) this.head.reject(error);
    else if (this.sink) this.sink.error(error);
    else if (this.whole) this.whole.reject(error);
  }

  private close(): void {
    this.clearTimer();
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private take(): Buffer {
    const body = Buffer.concat(this.held);
    this.held = [];
    return body;
  }
}
