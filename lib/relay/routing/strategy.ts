// The choice among the channels of one priority tier when the group's ChannelRoutingStrategy is
// not the default weighted random (which pickChannel does itself): least_inflight takes the
// channel with the fewest requests in flight, lowest_latency the one with the lowest moving
// average of first-token time (a channel not measured yet first, so each gets measured). Both
// count in this process only: each relay process balances its own traffic. A session's sticky
// channel still comes first, and channels whose breaker is open are skipped, as with weighted.
import type { RoutingStrategy } from "@/lib/limits/types";
import type { OptionValues } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";
import type { Breaker } from "@/lib/channels/breaker";

/** What pickChannel reports back about its choice: the open channels it skipped. */
export type PickNote = { breakerSkipped: Set<number> | null };

/** The tier as pickChannel keeps it (channels with their weights, in the same order). */
export type TierView<C extends { row: { id: number } }> = { channels: C[]; weights: number[] };

type Load = {
  /** Channel id → requests in flight (attempt start to the end of its answer). */
  inflight: Map<number, number>;
  /** Channel id → moving average of first-token time, ms. */
  latency: Map<number, number>;
};
const load = processSingleton<Load>("relayChannelLoad", () => ({ inflight: new Map(), latency: new Map() }));

/** The weight of a new latency sample in the moving average. */
const LATENCY_ALPHA = 0.2;

/** The group's strategy (weighted when the group is not listed). */
export function strategyOf(options: Pick<OptionValues, "ChannelRoutingStrategy">, group: string): RoutingStrategy {
  const table = options.ChannelRoutingStrategy;
  return Object.hasOwn(table, group) ? table[group]! : "weighted";
}

export function inflightStarted(channelId: number): void {
  load.inflight.set(channelId, (load.inflight.get(channelId) ?? 0) + 1);
}

export function inflightEnded(channelId: number): void {
  const n = (load.inflight.get(channelId) ?? 0) - 1;
  if (n > 0) load.inflight.set(channelId, n);
  else load.inflight.delete(channelId);
}

export function inflightOf(channelId: number): number {
  return load.inflight.get(channelId) ?? 0;
}

/** Adds a first-token time (ms) to the channel's moving average. */
export function recordLatency(channelId: number, ms: number): void {
  const before = load.latency.get(channelId);
  load.latency.set(channelId, before === undefined ? ms : before + LATENCY_ALPHA * (ms - before));
}

export function latencyOf(channelId: number): number | undefined {
  return load.latency.get(channelId);
}

/** Forgets the counts and averages (tests). */
export function resetChannelLoad(): void {
  load.inflight.clear();
  load.latency.clear();
}

/**
 * Whether pickChannel must pass over a channel because its breaker holds it (noted in `note`).
 * `open` is only passed while some breaker is not closed.
 */
export function heldOpen(open: ReadonlyMap<number, Breaker>, id: number, now: number, note: PickNote | null): boolean {
  const breaker = open.get(id);
  if (!breaker || breaker.allows(now)) return false;
  if (note) (note.breakerSkipped ??= new Set()).add(id);
  return true;
}

/**
 * The channel of the tier the strategy chooses among those not tried and not held open, or null
 * when none is left. Ties: least_inflight by weight (weighted random among the tied),
 * lowest_latency at random.
 */
export function chooseByLoad<C extends { row: { id: number } }>(
  tier: TierView<C>,
  strategy: Exclude<RoutingStrategy, "weighted">,
  tried: ReadonlySet<number>,
  preferred: number | null,
  open: ReadonlyMap<number, Breaker> | null,
  now: number,
  random: () => number,
  note: PickNote | null,
): C | null {
  let chosen: C | null = null;
  let best = Infinity;
  let tiedWeight = 0;
  const byLatency = strategy === "lowest_latency";
  for (let i = 0; i < tier.channels.length; i++) {
    const channel = tier.channels[i]!;
    const id = channel.row.id;
    if (tried.has(id)) continue;
    if (open && heldOpen(open, id, now, note)) continue;
    if (id === preferred) return channel;
    // Not measured yet: -1, before every measured one.
    const score = byLatency ? (load.latency.get(id) ?? -1) : (load.inflight.get(id) ?? 0);
    const weight = byLatency ? 1 : tier.weights[i]!;
    if (score < best) {
      best = score;
      chosen = channel;
      tiedWeight = weight;
    } else if (score === best) {
      // One pass, weighted reservoir: each tied channel ends chosen with its share of the weight.
      tiedWeight += weight;
      if (random() * tiedWeight < weight) chosen = channel;
    }
  }
  return chosen;
}

/**
 * Every untried channel of every tier is held open: the one whose cool-down ends first takes the
 * request, so that a gateway never refuses everything because all its upstreams blinked.
 */
export function soonestToReopen<C extends { row: { id: number } }>(
  tiers: readonly TierView<C>[],
  tried: ReadonlySet<number>,
  open: ReadonlyMap<number, Breaker>,
): C | null {
  let chosen: C | null = null;
  let soonest = Infinity;
  for (const tier of tiers)
    for (const channel of tier.channels) {
      const id = channel.row.id;
      if (tried.has(id)) continue;
      const until = open.get(id)?.until ?? -Infinity;
      if (until < soonest) {
        soonest = until;
        chosen = channel;
      }
    }
  return chosen;
}
