// A streamed answer: the upstream's server-sent events relayed to the client as they come
// (OpenAIStreamRelay converts and counts), with keep-alives, a silence limit and a drain after
// [DONE] run by one shared sweeper; when the stream ends for any reason (done, client gone,
// upstream broke, timeout, shutdown) it is settled for what it delivered (settle.ts).
import { env } from "@/lib/env";
import { quotaForTokens } from "@/lib/billing/price";
import type { CallContext } from "@/lib/relay/call/call-context";
import type { RelayResponse, RelaySink, RelayStreamBody } from "@/lib/relay/http";
import { OpenAIStreamRelay, type OpenAIStreamOptions } from "@/lib/relay/openai/stream-relay";
import { passthroughBookkeeping, type StreamBookkeeping } from "@/lib/relay/call/passthrough-reader";
import type { InboundStreamWriter } from "@/lib/relay/inbound";
import type { StreamFraming, UpstreamRequest } from "@/lib/relay/providers";
import { onRelayShutdown } from "@/lib/relay/memory/runtime";
import { billableUsage, settle, settleFailure } from "@/lib/relay/call/settle";
import { SSE_HEADERS, SSE_PING } from "@/lib/relay/openai/sse";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { Exchange, UpstreamSink } from "@/lib/relay/upstream";
import { streamsOpen } from "@/lib/metrics/registry";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

export function streamResponse(
  ctx: CallContext,
  channel: RouteChannel,
  upstream: UpstreamRequest,
  upstreamModel: string,
  exchange: Exchange,
): RelayResponse {
  // A passed-through stream (the channel speaks the caller's protocol) is read by the relay for
  // usage and timing, but the caller gets the upstream's own events: only the events that carry
  // usage, errors or the first token are read as they come (passthrough-reader.ts).
  const passthrough = upstream.passthrough === true && ctx.inbound !== null;
  const relay = new OpenAIStreamRelay(new StreamOptions(ctx, upstreamModel, upstream, passthrough));
  const book = passthrough ? passthroughBookkeeping(relay, ctx.inbound!.protocol.name) : relay;
  const encoder = ctx.inbound && !passthrough ? ctx.inbound.streamWriter() : null;
  const body = new RelayedStream(ctx, channel, upstreamModel, exchange, book, upstream.framing ?? null, encoder, passthrough);
  return { status: 200, headers: ctx.droppedHeader({ ...SSE_HEADERS, "x-oneapi-request-id": ctx.requestId }), body };
}

/** The stream relay's options; promptTokens is read only if the upstream reports no usage. */
class StreamOptions implements OpenAIStreamOptions {
  readonly mode: "chat" | "completions";
  readonly clientIncludeUsage: boolean;
  readonly requestId: string;
  readonly mapEvent: OpenAIStreamOptions["mapEvent"];
  constructor(
    private readonly ctx: CallContext,
    readonly model: string,
    upstream: UpstreamRequest,
    /** A passed-through stream: the relay's own output is never written. */
    readonly readOnly: boolean,
  ) {
    this.mode = ctx.mode === "completions" ? "completions" : "chat";
    this.clientIncludeUsage = clientWantsUsage(ctx.body.json);
    this.requestId = ctx.requestId;
    this.mapEvent = upstream.response?.streamEvent?.bind(upstream.response);
  }
  get promptTokens(): number {
    return this.ctx.promptTokens;
  }
}

/** After [DONE] the rest of the upstream's answer is read for this long, to keep its connection. */
const DRAIN_AFTER_DONE_MS = 5_000;

/**
 * One interval for all open streams, not a timer per stream: it sends keep-alive comments, ends
 * silent streams and stops drains that take too long. Its period is a fifth of the shortest of
 * those limits (50 ms to 1 s), which is how late any of them may act; it stops while no stream
 * is open.
 */
class StreamSweeper {
  private readonly streams = new Set<RelayedStream>();
  private timer: NodeJS.Timeout | null = null;
  readonly pingEvery = env.STREAM_KEEPALIVE > 0 ? env.STREAM_KEEPALIVE * 1000 : 0;
  readonly silentLimit = env.STREAMING_TIMEOUT > 0 ? env.STREAMING_TIMEOUT * 1000 : 0;
  private readonly period = Math.min(
    1_000,
    Math.max(50, Math.min(this.pingEvery || Infinity, this.silentLimit || Infinity, DRAIN_AFTER_DONE_MS) / 5),
  );

  constructor() {
    onRelayShutdown(() => this.endAll());
  }

  add(stream: RelayedStream): void {
    this.streams.add(stream);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.period);
      this.timer.unref();
    }
  }

  delete(stream: RelayedStream): void {
    this.streams.delete(stream);
  }

  /** Ends every open stream now (shutdown), each billed for what it delivered. */
  endAll(): void {
    for (const stream of [...this.streams]) stream.shutdown();
  }

  private sweep(): void {
    if (this.streams.size === 0) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    const now = Date.now();
    for (const stream of this.streams) stream.tick(now);
  }
}

let sweeper: StreamSweeper | null = null;

class RelayedStream implements RelayStreamBody, UpstreamSink {
  private sink: RelaySink | null = null;
  private finished = false;
  private clientGone = false;
  private upstreamOpen = true;
  private drainUntil = 0;
  private tailWritten = false;
  private lastData = 0;
  private lastSent = 0;
  private readonly sweeper = (sweeper ??= new StreamSweeper());

  constructor(
    private readonly ctx: CallContext,
    private readonly channel: RouteChannel,
    private readonly upstreamModel: string,
    private readonly exchange: Exchange,
    private readonly relay: StreamBookkeeping,
    /** Turns a body that is not SSE into SSE first (providers/types.ts, StreamFraming). */
    private readonly framing: StreamFraming | null,
    /** Re-encodes the relay's OpenAI events for a caller of another protocol (inbound/). */
    private readonly encoder: InboundStreamWriter | null,
    /** The caller gets the upstream's bytes as they came; the relay's own output is only read. */
    private readonly passthrough: boolean,
  ) {}

  start(sink: RelaySink): void {
    this.sink = sink;
    streamsOpen.open++;
    this.lastData = this.lastSent = Date.now();
    this.sweeper.add(this);
    this.exchange.pipe(this);
  }

  /** The client went away. */
  cancel(): void {
    if (this.finished) return;
    this.clientGone = true;
    this.finish();
  }

  /** Called by the sweeper now and then: keep-alive, silence limit, drain limit. */
  tick(now: number): void {
    if (this.finished) {
      if (this.upstreamOpen && now >= this.drainUntil) this.exchange.abort(new Error("upstream still sending after [DONE]"));
      return;
    }
    const { silentLimit, pingEvery } = this.sweeper;
    if (silentLimit > 0 && now - this.lastData >= silentLimit) {
      this.write(this.relay.abort("timeout"));
      this.finish();
    } else if (pingEvery > 0 && now - this.lastSent >= pingEvery) {
      this.lastSent = now;
      this.sink!.write(SSE_PING);
    }
  }

  /** The server is stopping: end the stream now and bill what was delivered. */
  shutdown(): void {
    if (this.finished) {
      if (this.upstreamOpen) this.exchange.abort(new Error("server shutting down"));
      this.sweeper.delete(this);
      return;
    }
    this.write(this.relay.abort("shutdown"));
    this.finish();
  }

  // --- UpstreamSink ----------------------------------------------------------------------------

  data(chunk: Buffer): boolean {
    if (this.finished) return true; // the rest after [DONE], read to keep the connection
    this.lastData = Date.now();
    let out = this.framing ? this.relay.transformFramed(this.framing, chunk) : this.relay.transform(chunk);
    if (this.encoder) out = this.encoder.write(out);
    else if (this.passthrough) out = chunk;
    let more = true;
    if (out) {
      this.lastSent = this.lastData;
      more = this.sink!.write(out);
    }
    if (this.relay.done) {
      this.finish();
      return true;
    }
    if (!more) this.sink!.onDrain(() => this.exchange.resume());
    return more;
  }

  end(): void {
    this.upstreamClosed();
    if (this.finished) return;
    if (this.framing) this.write(this.relay.endFramed(this.framing));
    this.write(this.relay.finish());
    this.finish();
  }

  error(): void {
    this.upstreamClosed();
    if (this.finished) return;
    // The upstream connection broke (or its body timed out).
    this.write(this.relay.abort("interrupted"));
    this.finish();
  }

  // ---------------------------------------------------------------------------------------------

  private upstreamClosed(): void {
    this.upstreamOpen = false;
    if (this.finished) this.sweeper.delete(this);
  }

  /** Writes the relay's own output (a stream's end, an abort's error event) to the client. */
  private write(bytes: Uint8Array | null): void {
    if (this.encoder) bytes = this.encoder.write(bytes);
    else if (this.passthrough) bytes = this.passthroughTail();
    if (bytes && !this.clientGone) this.sink!.write(bytes);
  }

  /**
   * A passed-through stream's end: the upstream's own events said everything, unless the relay
   * cut it (the connection broke, a timeout, shutdown), which the caller hears as its protocol's
   * error event.
   */
  private passthroughTail(): Uint8Array | null {
    const reason = this.relay.endReason;
    const error = this.relay.error;
    if (!error || (reason !== "interrupted" && reason !== "timeout" && reason !== "shutdown")) return null;
    if (this.tailWritten) return null;
    this.tailWritten = true;
    return this.ctx.inbound!.streamError(error);
  }

  /** Ends the client's stream (unless it is gone), settles the upstream side, bills. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.sink) streamsOpen.open--;
    if (this.upstreamOpen && this.relay.endReason === "done" && !this.clientGone) this.drainUntil = Date.now() + DRAIN_AFTER_DONE_MS;
    else {
      this.sweeper.delete(this);
      if (this.upstreamOpen)
        this.exchange.abort(new Error(this.clientGone ? "client disconnected" : `stream ended (${this.relay.endReason})`));
    }
    if (!this.clientGone) this.sink!.end();
    const { ctx, relay } = this;
    const usage = billableUsage(ctx, this.upstreamModel, relay.usage, relay.sawUpstreamUsage);
    const quota = quotaForTokens(ctx.pricing, usage);
    const frt = relay.firstTokenAt ?? relay.firstByteAt;
    // Not awaited: the response has ended; the bookkeeping follows in the same turn.
    settle(ctx, this.channel, this.upstreamModel, usage, quota, true, {
      frt: frt ? frt - ctx.startedAt : -1000,
      clientGone: this.clientGone,
      streamEnd: relay.endReason ?? undefined,
      upstreamUsage: relay.sawUpstreamUsage,
    }).catch((error) => {
      log.error({ err: error, requestId: ctx.requestId }, "settle failed");
      return settleFailure(ctx);
    });
  }
}

function clientWantsUsage(json: Record<string, unknown> | null): boolean {
  const so = json?.stream_options;
  return !!so && typeof so === "object" && (so as Record<string, unknown>).include_usage === true;
}
