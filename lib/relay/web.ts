// Serves the relay core through web Request/Response, for Next route handlers.
import { handleRelay } from "@/lib/relay/pipeline";
import { MAX_BODY_BYTES } from "@/lib/relay/http";
import { openAIError } from "@/lib/relay/errors";
import { requestIp } from "@/lib/net/client-ip";

const encoder = new TextEncoder();

export async function relayWebRequest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) {
    return Response.json(openAIError(413, "请求体过大", "invalid_request_error").body, { status: 413 });
  }
  const body = new Uint8Array(await request.arrayBuffer());
  const out = await handleRelay({
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    headers: request.headers,
    body,
    clientIp: requestIp(request.headers),
    signal: request.signal,
  });
  const b = out.body;
  if (b === null || typeof b === "string" || b instanceof Uint8Array) {
    return new Response(b as BodyInit | null, { status: out.status, headers: out.headers });
  }
  const iterator = b[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, { status: out.status, headers: out.headers });
}
