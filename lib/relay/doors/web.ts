// Serves the relay core through web Request/Response, for Next route handlers.
import { handleRelay } from "@/lib/relay/call/pipeline";
import { addRequestIdHeader, MAX_BODY_BYTES, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { authenticateKey, type RelayCaller } from "@/lib/relay/memory/key-auth";
import {
  admitBodyBytes,
  bodyBudgetFull,
  bodyTooLargeFor,
  keyedBeforeBody,
  refusalBeforeBody,
  releaseBodyBytes,
} from "@/lib/relay/request/before-body";
import { NOSNIFF, NOSNIFF_HEADER } from "@/lib/relay/openai/answer-type";
import { requestIp } from "@/lib/net/client-ip";
import { declaredLength, readBodyWithin } from "@/lib/net/body";

const EMPTY = new Uint8Array(0);

/** A web Request as the relay core sees it (a class: an object literal with a getter is slow in V8). */
class WebRelayRequest implements RelayRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Headers;
  readonly clientIp: string;
  body: Uint8Array = EMPTY;
  caller: RelayCaller | undefined = undefined;
  constructor(
    private readonly request: Request,
    url: URL,
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
  const relayRequest = new WebRelayRequest(request, url);
  const out = await answerWeb(request, relayRequest);
  // Every relay answer, errors and preflights included: no browser guesses a type from the bytes.
  out.headers[NOSNIFF_HEADER] = NOSNIFF;
  addRequestIdHeader(out.headers);
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

/**
 * The body of a request answered without it, read and dropped (held nowhere): cancelling it would
 * destroy the socket under Node, and the client would get a reset instead of the answer.
 */
function dropUnreadBody(request: Request): void {
  void readBodyWithin(request, 0).catch(() => undefined);
}

/**
 * The key from the headers, then the body within MAX_BODY_BYTES and this process's budget of
 * bodies in flight (before-body.ts), then the pipeline. A web host gives no hook for the end of
 * the answer: the budget is held while the body is read and the pipeline runs.
 */
async function answerWeb(request: Request, req: WebRelayRequest): Promise<RelayResponse> {
  if (keyedBeforeBody(req.method, req.path)) {
    try {
      const caller = authenticateKey(req);
      req.caller = caller instanceof Promise ? await caller : caller;
    } catch (error) {
      dropUnreadBody(request);
      return refusalBeforeBody(error, req);
    }
  }
  const declared = Math.min(declaredLength(request.headers.get("content-length")), MAX_BODY_BYTES);
  if (!admitBodyBytes(declared, 0)) {
    dropUnreadBody(request);
    return bodyBudgetFull(req.method, req.path, req.query);
  }
  try {
    const body = await readBodyWithin(request, MAX_BODY_BYTES);
    if (body === null) {
      return bodyTooLargeFor(req.method, req.path, req.query);
    }
    req.body = body;
    return await handleRelay(req);
  } finally {
    releaseBodyBytes(declared);
  }
}
