// What routing learns from each attempt (attempts.ts calls these; settle.ts ends the answer):
// requests in flight per channel (least_inflight), first-token times (lowest_latency), and the
// outcomes that move the channel's circuit breaker. An attempt is in flight from being sent to
// its failure, or, once its answer started, to that answer's settlement (finished, failed, client
// gone or timed out: settle() runs for every end).
import type { CallContext } from "@/lib/relay/call/call-context";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { Failure } from "@/lib/relay/call/upstream-failure";
import {
  blockedChannels,
  breakerAbandon,
  breakerBegin,
  breakerFailure,
  breakersHeld,
  breakerSuccess,
  countsAsOutage,
  dropAllBreakers,
} from "@/lib/channels/breaker";
import { inflightEnded, inflightStarted, recordLatency } from "@/lib/relay/routing/strategy";

/** Before the first attempt: with the breaker turned off, whatever it held is forgotten. */
export function routingStarts(ctx: CallContext): void {
  if (!ctx.options.ChannelBreakerEnabled && breakersHeld()) dropAllBreakers();
}

/** The attempt is being sent: counted in flight; past an open breaker's cool-down it is the trial. */
export function attemptSent(ctx: CallContext, channel: RouteChannel): void {
  const id = channel.row.id;
  inflightStarted(id);
  ctx.attemptAt = Date.now();
  if (blockedChannels.size > 0) breakerBegin(String(id), ctx.attemptAt);
}

/** The attempt's answer started reaching the client: the channel works; it stays in flight until settled. */
export function answerStarted(ctx: CallContext, channel: RouteChannel): void {
  ctx.answering = channel.row.id;
  if (breakersHeld()) breakerSuccess(String(channel.row.id));
}

/** The attempt failed: out of flight; an outage counts toward the channel's breaker. */
export function attemptFailed(ctx: CallContext, channel: RouteChannel, failure: Failure): void {
  const id = channel.row.id;
  inflightEnded(id);
  if (!ctx.options.ChannelBreakerEnabled) return;
  if (!countsAsOutage(failure.status, ctx.req.gone)) {
    breakerAbandon(String(id));
    return;
  }
  const reason = `状态码 ${failure.status}：${failure.error.message}`.slice(0, 300);
  if (breakerFailure(String(id), ctx.options, reason)) (ctx.breakerOpened ??= []).push(id);
}

/** The attempt threw (a bug, not an answer): out of flight, and a trial it held is let go. */
export function attemptThrew(channel: RouteChannel): void {
  inflightEnded(channel.row.id);
  breakerAbandon(String(channel.row.id));
}

/**
 * The answer ended (settle.ts): out of flight, and its first-token time joins the channel's
 * average. `frt`: ms from the call's start to the first token of a stream (negative: none came);
 * a whole answer passes none, its time is the whole answer's.
 */
export function answerEnded(ctx: CallContext, frt: number | undefined): void {
  const id = ctx.answering;
  if (id === null) return;
  ctx.answering = null;
  inflightEnded(id);
  if (frt === undefined) recordLatency(id, Date.now() - ctx.attemptAt);
  else if (frt >= 0) recordLatency(id, Math.max(0, frt - (ctx.attemptAt - ctx.startedAt)));
}
