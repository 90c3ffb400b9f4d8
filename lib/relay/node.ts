// Serves the relay core over Node's http: no web Request/Response objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleRelay } from "@/lib/relay/pipeline";
import { bodyTooLarge, MAX_BODY_BYTES, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { protocolFor } from "@/lib/relay/inbound";
import { NOSNIFF, NOSNIFF_HEADER } from "@/lib/relay/answer-type";
import { declaredLength } from "@/lib/net/body";
import { LARGE_BODY_BYTES, type BodySummaryResult } from "@/lib/relay/request-body";
import { summariseJsonBodyOffLoop } from "@/lib/relay/body-thread";
import type { RelayMode } from "@/lib/relay/types";

/**
 * The body, or null once it passes MAX_BODY_BYTES (counted as it arrives; a Content-Length above
 * the cap refuses at once). The rest of an oversized body is read and dropped rather than cut
 * off: destroying the request would reset the socket before the 413 reaches the client.
 */
function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = declaredLength(req.headers["content-length"]);
    let over = declared > MAX_BODY_BYTES;
    if (over) resolve(null);
    // A large body goes straight into shared memory, where the body thread reads it without a
    // copy (lib/relay/body-thread.ts); Node's parser holds a request to its Content-Length.
    let into =
      !over && declared >= LARGE_BODY_BYTES && Number.isSafeInteger(declared) ? Buffer.from(new SharedArrayBuffer(declared)) : null;
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
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (into) resolve(size === into.length ? into : into.subarray(0, size));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on("error", reject);
  });
}

const headerGetter = (req: IncomingMessage) => ({
  get(name: string): string | null {
    const v = req.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  },
});

const noop = () => undefined;

class NodeRelayRequest implements RelayRequest {
  gone = false;
  private goneCallbacks: (() => void)[] | null = null;
  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: RelayRequest["headers"],
    readonly body: Uint8Array,
    readonly clientIp: string,
    res: ServerResponse,
  ) {
    res.once("close", () => {
      if (res.writableFinished) return;
      this.gone = true;
      const callbacks = this.goneCallbacks;
      this.goneCallbacks = null;
      if (callbacks) for (const callback of callbacks) callback();
    });
  }
  get query(): URLSearchParams {
    return new URLSearchParams(this.rawQuery);
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
  const body = await readBody(req);
  let out: RelayResponse;
  if (body === null) {
    out = {
      status: 413,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(bodyTooLarge(protocolFor(req.method ?? "GET", path))),
    };
  } else {
    out = await handleRelay(
      new NodeRelayRequest(req.method ?? "GET", path, q < 0 ? "" : url.slice(q + 1), headerGetter(req), body, clientIp, res),
    );
  }
  writeResponse(res, out);
}

function writeResponse(res: ServerResponse, out: RelayResponse): void {
  // Every relay answer, errors and preflights included: no browser guesses a type from the bytes.
  out.headers[NOSNIFF_HEADER] = NOSNIFF;
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
