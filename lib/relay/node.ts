// Serves the relay core over Node's http: no web Request/Response objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleRelay } from "@/lib/relay/pipeline";
import { MAX_BODY_BYTES, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { openAIError } from "@/lib/relay/errors";

function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const headerGetter = (req: IncomingMessage) => ({
  get(name: string): string | null {
    const v = req.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  },
});

/**
 * The client's abort signal, made on first use: whole answers never ask for it, so most requests
 * pay for neither the controller nor its listener.
 */
class NodeRelayRequest implements RelayRequest {
  private controller: AbortController | null = null;
  private gone = false;
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
      this.controller?.abort();
    });
  }
  get query(): URLSearchParams {
    return new URLSearchParams(this.rawQuery);
  }
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }
}

export async function serveRelayNode(req: IncomingMessage, res: ServerResponse, clientIp: string): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const body = await readBody(req);
  let out: RelayResponse;
  if (body === null) {
    out = { status: 413, headers: { "content-type": "application/json" }, body: JSON.stringify(openAIError(413, "请求体过大", "invalid_request_error").body) };
  } else {
    out = await handleRelay(new NodeRelayRequest(req.method ?? "GET", path, q < 0 ? "" : url.slice(q + 1), headerGetter(req), body, clientIp, res));
  }
  await writeResponse(res, out);
}

async function writeResponse(res: ServerResponse, out: RelayResponse) {
  const body = out.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    const buf = body === null ? undefined : typeof body === "string" ? Buffer.from(body) : body;
    if (buf) out.headers["content-length"] = String(buf.length);
    res.writeHead(out.status, out.headers);
    res.end(buf);
    return;
  }
  res.writeHead(out.status, out.headers);
  // Headers go out with the first chunk (one write, not two); if no chunk is ready by the end of
  // this turn of the event loop, they go out alone so the client knows the stream has started.
  const early = setImmediate(() => res.flushHeaders());
  // Chunks produced in one turn (an upstream read often holds several events, then the end)
  // leave in one write.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  try {
    for await (const chunk of body) {
      if (res.destroyed) break;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      if (!res.write(chunk)) {
        if (corked) uncork();
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
    }
  } finally {
    clearImmediate(early);
    res.end();
  }
}
