// Serves the relay core through web Request/Response, for Next route handlers.
import { handleRelay } from "@/lib/relay/pipeline";
import { bodyTooLarge, MAX_BODY_BYTES, type RelayRequest } from "@/lib/relay/http";
import { protocolFor } from "@/lib/relay/inbound";
import { NOSNIFF, NOSNIFF_HEADER } from "@/lib/relay/answer-type";
import { requestIp } from "@/lib/net/client-ip";
import { readBodyWithin } from "@/lib/net/body";

/** A web Request as the relay core sees it (a class: an object literal with a getter is slow in V8). */
class WebRelayRequest implements RelayRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Headers;
  readonly clientIp: string;
  constructor(
    private readonly request: Request,
    url: URL,
    readonly body: Uint8Array,
  ) {
    this.method = request.method;
    this.path = url.pathname;
    this.query = url.searchParams;
    this.headers = request.headers;
    this.clientIp = requestIp(request.headers);
  }
  get gone(): boolean {
    return this.request.signal.aborted;
  }
  onGone(callback: () => void): () => void {
    const signal = this.request.signal;
    if (signal.aborted) {
      callback();
      return () => undefined;
    }
    signal.addEventListener("abort", callback, { once: true });
    return () => signal.removeEventListener("abort", callback);
  }
}

export async function relayWebRequest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = await readBodyWithin(request, MAX_BODY_BYTES);
  if (body === null)
    return Response.json(bodyTooLarge(protocolFor(request.method, url.pathname)), { status: 413, headers: { [NOSNIFF_HEADER]: NOSNIFF } });
  const out = await handleRelay(new WebRelayRequest(request, url, body));
  // Every relay answer, errors and preflights included: no browser guesses a type from the bytes.
  out.headers[NOSNIFF_HEADER] = NOSNIFF;
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
