// Choosing the key of a multi-key channel for one attempt, as new-api does: "random" picks
// uniformly among the enabled keys, "polling" takes them in turn (an in-process position per
// channel, so two instances each rotate on their own). Keys already tried by this request, and
// keys the `allows` predicate refuses (the circuit breaker's open keys), are skipped.
import type { RouteChannel, RouteKey } from "@/lib/relay/memory/key-user-channel-cache";
import { processSingleton } from "@/lib/singleton";

/** The key an attempt used: null for a channel of one key. */
export type ChosenKey = RouteKey;

/** channel id → the key index polling starts from next. */
const polling = processSingleton("channelKeyPolling", () => new Map<number, number>());

/**
 * A key of `rc` for the next attempt, or null when none is left (every enabled key tried or
 * refused). Only for multi-key channels: null when `rc.keys` is null.
 */
export function pickKey(
  rc: RouteChannel,
  triedKeys: ReadonlySet<string>,
  allows?: (hash: string) => boolean,
  random = Math.random,
): RouteKey | null {
  const keys = rc.keys;
  if (!keys) return null;
  const usable = (k: RouteKey) => k.enabled && !triedKeys.has(k.hash) && (allows === undefined || allows(k.hash));
  if (rc.row.multi_key_mode === "polling") {
    const n = keys.length;
    const start = polling.get(rc.row.id) ?? 0;
    for (let i = 0; i < n; i++) {
      const k = keys[(start + i) % n]!;
      if (!usable(k)) continue;
      polling.set(rc.row.id, (k.index + 1) % n);
      return k;
    }
    return null;
  }
  let count = 0;
  for (const k of keys) if (usable(k)) count++;
  if (count === 0) return null;
  let r = Math.floor(random() * count);
  for (const k of keys) if (usable(k) && r-- === 0) return k;
  return null;
}

/** Forgets polling positions; tests use it between scenarios. */
export function resetKeyPolling(): void {
  polling.clear();
}
