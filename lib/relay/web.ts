// Serves the relay core through web Request/Response, for Next route handlers.
import { handleRelay } from "@/lib/relay/pipeline";
import { MAX_BODY_BYTES } from "@/lib/relay/http";
import { openAIError } from "@/lib/relay/errors";
import { requestIp } from "@/lib/net/client-ip";

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
    get gone() {
      return request.signal.aborted;
    },
    onGone(callback) {
      const signal = request.signal;
      if (signal.aborted) {
        callback();
        return () => undefined;
      }
      signal.addEventListener("abort", callback, { once: true });
      return () => signal.removeEventListener("abort", callback);
    },
  });
  const b = out.body;
  if (b === null || typeof b === "string" || b instanceof Uint8Array) {
    return new Response(b as BodyInit | null, { status: out.status, headers: out.headers });
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let onDrain: (() => void) | null = null;
  let open = true;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        const resume = onDrain;
        onDrain = null;
        resume?.();
      },
      cancel() {
        open = false;
        b.cancel();
      },
    },
    { highWaterMark: 16 },
  );
  b.start({
    write(chunk) {
      if (!open) return true;
      controller.enqueue(chunk);
      return (controller.desiredSize ?? 1) > 0;
    },
    end() {
      if (open) controller.close();
      open = false;
    },
    onDrain(callback) {
      onDrain = callback;
    },
  });
  return new Response(stream, { status: out.status, headers: out.headers });
}
