// Serves the relay core over Node's http: no web Request/Response objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleRelay } from "@/lib/relay/call/pipeline";
import { addRequestIdHeader, MAX_BODY_BYTES, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { componentLogger } from "@/lib/log";
import { NOSNIFF, NOSNIFF_HEADER } from "@/lib/relay/openai/answer-type";
import { declaredLength } from "@/lib/net/body";
import { LARGE_BODY_BYTES, type BodySummaryResult } from "@/lib/relay/request/request-body";
import { summariseJsonBodyOffLoop } from "@/lib/relay/request/body-thread";
import type { RelayMode } from "@/lib/relay/types";
import { authenticateKey, type RelayCaller } from "@/lib/relay/memory/key-auth";
import { isDraining } from "@/lib/server/drain";
import {
  admitBodyBytes,
  bodyBudgetFull,
  bodyTooLargeFor,
  drainingRefusal,
  keyedBeforeBody,
  refusalBeforeBody,
  releaseBodyBytes,
} from "@/lib/relay/request/before-body";

const log = componentLogger("relay");
const EMPTY = new Uint8Array(0);
const noop = () => undefined;

/** What reading a body came to, when not the body itself. */
type Unread = "too-large" | "busy" | "gone";

/**
 * The body, counted against MAX_BODY_BYTES as it arrives (a Content-Length above the cap refuses
 * at once) and against this process's budget of bodies in flight (before-body.ts): a declared
 * length is admitted whole before a byte is read, a chunked body chunk by chunk. The rest of a
 * body found oversized while reading is read and dropped rather than cut off: destroying the
 * request would reset the socket before the 413 reaches the client.
 */
function readBody(req: IncomingMessage, request: NodeRelayRequest): Promise<Uint8Array | Unread> {
  const declared = declaredLength(req.headers["content-length"]);
  if (declared > MAX_BODY_BYTES) return Promise.resolve("too-large");
  if (declared > 0) {
    if (!admitBodyBytes(declared, 0)) return Promise.resolve("busy");
    request.held = declared;
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let ended = false;
    // A large body goes straight into shared memory, where the body thread reads it without a
    // copy (lib/relay/request/body-thread.ts); Node's parser holds a request to its Content-Length.
    let into = declared >= LARGE_BODY_BYTES && Number.isSafeInteger(declared) ? Buffer.from(new SharedArrayBuffer(declared)) : null;
    req.on("data", (c: Buffer) => {
      if (over) return;
      if (into) {
        if (size + c.length <= into.length) {
          into.set(c, size);
          size += c.length;
          return;
        }
        chunks.push(into.subarray(0, size)); // more than declared (the parser does not allow it)
        into = null;
      }
      size += c.length;
      if (size > request.held) {
        // No length declared: the budget is taken as the bytes come.
        if (!admitBodyBytes(size - request.held, request.held)) {
          over = true;
          chunks.length = 0;
          resolve("busy");
          return;
        }
        request.held = size;
      }
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        resolve("too-large");
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      ended = true;
      if (into) resolve(size === into.length ? into : into.subarray(0, size));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    // The client cut the upload off ("aborted"): nothing to answer, one line to log.
    req.on("error", () => {
      if (ended || over) return;
      chunks.length = 0;
      into = null;
      log.warn(
        { method: req.method, path: request.path, bytesRead: size, declared: declared > 0 ? declared : undefined },
        "the client left during its body",
      );
      resolve("gone");
    });
  });
}

const headerGetter = (req: IncomingMessage) => ({
  get(name: string): string | null {
    const v = req.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  },
  // Node lower-cases the names it parses, as Headers#keys gives them.
  keys: () => Object.keys(req.headers),
});

class NodeRelayRequest implements RelayRequest {
  gone = false;
  body: Uint8Array = EMPTY;
  caller: RelayCaller | undefined = undefined;
  /** Bytes of this body admitted into the process's budget (before-body.ts), given back at the end. */
  held = 0;
  private goneCallbacks: (() => void)[] | null = null;
  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: RelayRequest["headers"],
    readonly clientIp: string,
    res: ServerResponse,
  ) {
    res.once("close", () => {
      if (this.held > 0) {
        releaseBodyBytes(this.held);
        this.held = 0;
      }
      if (res.writableFinished) return;
      this.gone = true;
      const callbacks = this.goneCallbacks;
      this.goneCallbacks = null;
      if (callbacks) for (const callback of callbacks) callback();
    });
  }
  private params: URLSearchParams | null = null;
  /** Parsed the first time it is asked for (a call asks three or four times), then kept. */
  get query(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.rawQuery));
  }
  summariseJsonBody(mode: RelayMode, defaultModel: string, sensitiveWords: string | null): Promise<BodySummaryResult> {
    return summariseJsonBodyOffLoop(this.body, mode, defaultModel, sensitiveWords);
  }
  onGone(callback: () => void): () => void {
    if (this.gone) {
      callback();
      return noop;
    }
    (this.goneCallbacks ??= []).push(callback);
    return () => {
      const i = this.goneCallbacks?.indexOf(callback) ?? -1;
      if (i >= 0) this.goneCallbacks!.splice(i, 1);
    };
  }
}

export async function serveRelayNode(req: IncomingMessage, res: ServerResponse, clientIp: string): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method ?? "GET";
  if (isDraining()) {
    writeResponse(res, drainingRefusal(method, path, q < 0 ? undefined : new URLSearchParams(url.slice(q + 1))));
    return dropUnreadBody(req);
  }
  const request = new NodeRelayRequest(method, path, q < 0 ? "" : url.slice(q + 1), headerGetter(req), clientIp, res);
  if (keyedBeforeBody(method, path)) {
    // From the headers alone: a refused key is answered before a byte of the body is read.
    try {
      const caller = authenticateKey(request);
      request.caller = caller instanceof Promise ? await caller : caller;
    } catch (error) {
      writeResponse(res, refusalBeforeBody(error, request));
      return dropUnreadBody(req);
    }
  }
  const body = await readBody(req, request);
  if (typeof body !== "string") {
    request.body = body;
    return writeResponse(res, await handleRelay(request));
  }
  if (body === "gone") return;
  writeResponse(res, body === "busy" ? bodyBudgetFull(method, path, request.query) : bodyTooLargeFor(method, path, request.query));
  dropUnreadBody(req);
}

/**
 * After an answer given before the body was read: the rest of the body is read and dropped, held
 * nowhere, so the client gets its answer rather than a reset (closing a socket the client still
 * writes to resets it, and the answer can be lost with it) and the connection stays usable. A
 * body that never ends is cut off once it passes MAX_BODY_BYTES.
 */
function dropUnreadBody(req: IncomingMessage): void {
  if (req.complete) return;
  let dropped = 0;
  req.on("data", (c: Buffer) => {
    dropped += c.length;
    if (dropped > MAX_BODY_BYTES) req.socket.destroy();
  });
  req.on("error", noop);
}

function writeResponse(res: ServerResponse, out: RelayResponse): void {
  // Every relay answer, errors and preflights included: no browser guesses a type from the bytes.
  out.headers[NOSNIFF_HEADER] = NOSNIFF;
  addRequestIdHeader(out.headers);
  const body = out.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    const buf = body === null ? undefined : typeof body === "string" ? Buffer.from(body) : body;
    if (buf) out.headers["content-length"] = String(buf.length);
    res.writeHead(out.status, out.headers);
    res.end(buf);
    return;
  }
  if (res.destroyed) {
    body.cancel(); // the client left while the upstream was being asked
    return;
  }
  res.writeHead(out.status, out.headers);
  // Headers go out with the first chunk (one write, not two); if no chunk is ready by the end of
  // this turn of the event loop, they go out alone so the client knows the stream has started.
  let wrote = false;
  let early: NodeJS.Immediate | null = null;
  // Chunks produced in one turn (an upstream read often holds several events, then the end)
  // leave in one write.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  res.once("close", () => {
    if (!res.writableFinished) body.cancel();
  });
  body.start({
    write(chunk) {
      if (res.destroyed) return true;
      wrote = true;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      return res.write(chunk);
    },
    end() {
      if (early) clearImmediate(early);
      res.end();
    },
    onDrain(callback) {
      res.once("drain", callback);
    },
  });
  if (!wrote && !res.writableEnded) early = setImmediate(() => wrote || res.flushHeaders());
}
