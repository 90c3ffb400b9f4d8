// What routing learns from each attempt (attempts.ts calls these; settle.ts ends the answer):
// requests in flight per channel (least_inflight), first-token times (lowest_latency), and the
// outcomes that move the channel's circuit breaker. An attempt is in flight from being sent to
// its failure, or, once its answer started, to that answer's settlement (finished, failed, client
// gone or timed out: settle() runs for every end).
//
// A multi-key channel's outages count against the key that failed, not the channel: one broken key
// among ten must not take the other nine out. The choice of key passes over open keys (keyAllows);
// once every enabled key is open the channel itself is opened until the first of them reopens, so
// the choice of channel passes over it too.
import type { CallContext } from "@/lib/relay/call/call-context";
import type { RouteChannel, RouteKey } from "@/lib/relay/memory/key-user-channel-cache";
import type { Failure } from "@/lib/relay/call/upstream-failure";
import {
  blockedChannels,
  breakerAbandon,
  breakerAllows,
  breakerBegin,
  breakerFailure,
  breakersHeld,
  breakerSuccess,
  breakerTarget,
  breakerTrip,
  breakerUntil,
  countsAsOutage,
  dropAllBreakers,
} from "@/lib/channels/breaker";
import { inflightEnded, inflightStarted, recordLatency } from "@/lib/relay/routing/strategy";

/** Before the first attempt: with the breaker turned off, whatever it held is forgotten. */
export function routingStarts(ctx: CallContext): void {
  if (!ctx.options.ChannelBreakerEnabled && breakersHeld()) dropAllBreakers();
}

/** For choosing a multi-key channel's key: whether a key's breaker lets it take the request (undefined: no breaker holds anything). */
export function keyAllows(channel: RouteChannel): ((hash: string) => boolean) | undefined {
  if (!breakersHeld()) return undefined;
  const id = channel.row.id;
  return (hash) => breakerAllows(breakerTarget(id, hash));
}

/** The attempt is being sent: counted in flight; past an open breaker's cool-down it is the trial. */
export function attemptSent(ctx: CallContext, channel: RouteChannel, key: RouteKey | null = null): void {
  const id = channel.row.id;
  inflightStarted(id);
  ctx.attemptAt = Date.now();
  if (!breakersHeld()) return;
  if (blockedChannels.size > 0) breakerBegin(String(id), ctx.attemptAt);
  if (key) breakerBegin(breakerTarget(id, key.hash), ctx.attemptAt);
}

/** The attempt's answer started reaching the client: the channel works; it stays in flight until settled. */
export function answerStarted(ctx: CallContext, channel: RouteChannel, key: RouteKey | null = null): void {
  ctx.answering = channel.row.id;
  if (!breakersHeld()) return;
  breakerSuccess(String(channel.row.id));
  if (key) breakerSuccess(breakerTarget(channel.row.id, key.hash));
}

/** The attempt failed: out of flight; an outage counts toward the channel's breaker (or its key's). */
export function attemptFailed(ctx: CallContext, channel: RouteChannel, failure: Failure, key: RouteKey | null = null): void {
  const id = channel.row.id;
  inflightEnded(id);
  if (!ctx.options.ChannelBreakerEnabled) return;
  const target = key ? breakerTarget(id, key.hash) : String(id);
  if (!countsAsOutage(failure.status, ctx.req.gone)) {
    breakerAbandon(target);
    if (key) breakerAbandon(String(id));
    return;
  }
  const reason = `状态码 ${failure.status}：${failure.error.message}`.slice(0, 300);
  if (!breakerFailure(target, ctx.options, reason)) return;
  (ctx.breakerOpened ??= []).push(id);
  if (key) tripWhenEveryKeyOpen(channel, reason);
}

/** Every enabled key of the channel is open: the channel is too, until the first key reopens. */
function tripWhenEveryKeyOpen(channel: RouteChannel, reason: string): void {
  const id = channel.row.id;
  let soonest = Number.POSITIVE_INFINITY;
  for (const k of channel.keys ?? []) {
    if (!k.enabled) continue;
    const until = breakerUntil(breakerTarget(id, k.hash));
    if (until === 0) return;
    soonest = Math.min(soonest, until);
  }
  if (Number.isFinite(soonest)) breakerTrip(String(id), soonest, reason);
}

/** The attempt threw (a bug, not an answer): out of flight, and a trial it held is let go. */
export function attemptThrew(channel: RouteChannel, key: RouteKey | null = null): void {
  inflightEnded(channel.row.id);
  breakerAbandon(String(channel.row.id));
  if (key) breakerAbandon(breakerTarget(channel.row.id, key.hash));
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
