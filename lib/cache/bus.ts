// Cache invalidation events. Writers publish after a committed change; in-memory caches (relay
// keys, users, channels, options) subscribe. Listeners in this process run synchronously; remote
// publishers carry the event to the other processes of this instance (lib/server/ipc.ts) and, with
// REDIS_CONN_STRING, to the other instances (lib/cache/redis-bus.ts). Without Redis (or while it
// is down) other instances see a change within SYNC_FREQUENCY, when every cache is reloaded.
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("cache");

export type CacheEvent =
  | { kind: "channels" }
  | { kind: "token"; keyHash?: string; id?: number }
  | { kind: "user"; id: number }
  | { kind: "options" }
  /**
   * A routing target's circuit breaker opened (until: ms when its cool-down ends) or closed
   * (lib/channels/breaker.ts).
   */
  | { kind: "breaker"; target: string; state: "open" | "closed"; until: number; reason?: string }
  /**
   * This process may have missed other instances' events (the Redis bus was down and is back,
   * lib/cache/redis-bus.ts): every cache reloads. Delivered locally only, never published.
   */
  | { kind: "resync" };

/** `remote`: the event was published by another process (lib/server/ipc.ts), not this one. */
type Listener = (event: CacheEvent, remote: boolean) => void;
type Publisher = (event: CacheEvent) => void;

type BusState = { listeners: Set<Listener>; remotes: Set<Publisher> };
const state = processSingleton<BusState>("cacheBus", () => ({ listeners: new Set(), remotes: new Set() }));

export function onInvalidation(listener: Listener): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

/** Delivers an event to this process's listeners only (`remote` when it came from elsewhere). */
export function deliverLocally(event: CacheEvent, remote: boolean) {
  for (const l of state.listeners) {
    try {
      l(event, remote);
    } catch (error) {
      log.error({ err: error }, "invalidation listener failed");
    }
  }
}

export function publishInvalidation(event: CacheEvent) {
  deliverLocally(event, false);
  for (const remote of state.remotes) {
    try {
      remote(event);
    } catch (error) {
      log.error({ err: error }, "forwarding an invalidation failed");
    }
  }
}

/** Adds a publisher that carries events beyond this process; returns its removal. */
export function addRemotePublisher(publish: Publisher): () => void {
  state.remotes.add(publish);
  return () => state.remotes.delete(publish);
}
