// Serves the relay core over Node's http: no web Request/Response objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleRelay } from "@/lib/relay/pipeline";
import { MAX_BODY_BYTES, type RelayResponse } from "@/lib/relay/http";
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

export async function serveRelayNode(req: IncomingMessage, res: ServerResponse, clientIp: string): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const body = await readBody(req);
  let out: RelayResponse;
  if (body === null) {
    out = { status: 413, headers: { "content-type": "application/json" }, body: JSON.stringify(openAIError(413, "请求体过大", "invalid_request_error").body) };
  } else {
    out = await handleRelay({
      method: req.method ?? "GET",
      path,
      query: new URLSearchParams(q < 0 ? "" : url.slice(q + 1)),
      headers: headerGetter(req),
      body,
      clientIp,
      signal: controller.signal,
    });
  }
  await writeResponse(res, out, controller.signal);
}

async function writeResponse(res: ServerResponse, out: RelayResponse, signal: AbortSignal) {
  const body = out.body;
  if (body === null || typeof body === "string" || body instanceof Uint8Array) {
    const buf = body === null ? undefined : typeof body === "string" ? Buffer.from(body) : body;
    res.writeHead(out.status, buf ? { ...out.headers, "content-length": String(buf.length) } : out.headers);
    res.end(buf);
    return;
  }
  res.writeHead(out.status, out.headers);
  res.flushHeaders();
  try {
    for await (const chunk of body) {
      if (signal.aborted) break;
      if (!res.write(chunk)) await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  } finally {
    res.end();
  }
}
