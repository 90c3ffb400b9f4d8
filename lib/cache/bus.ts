// Cache invalidation events. Writers publish after a committed change; in-memory caches (relay
// keys, users, channels, options) subscribe. Listeners in this process run synchronously; with
// REDIS_CONN_STRING the event also reaches the other instances (lib/cache/redis-bus.ts).

export type CacheEvent =
  | { kind: "channels" }
  | { kind: "token"; keyHash?: string; id?: number }
  | { kind: "user"; id: number }
  | { kind: "options" };

type Listener = (event: CacheEvent) => void;

type BusState = { listeners: Set<Listener>; remote?: (event: CacheEvent) => void };
const g = globalThis as { __qiaoCacheBus?: BusState };
const state = (g.__qiaoCacheBus ??= { listeners: new Set() });

export function onInvalidation(listener: Listener): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

/** Delivers an event to this process's listeners only (used for events arriving from Redis). */
export function deliverLocally(event: CacheEvent) {
  for (const l of state.listeners) {
    try {
      l(event);
    } catch (error) {
      console.error("[cache] invalidation listener failed:", error);
    }
  }
}

export function publishInvalidation(event: CacheEvent) {
  deliverLocally(event);
  state.remote?.(event);
}

/** Installs the cross-instance publisher (Redis). */
export function setRemotePublisher(publish: ((event: CacheEvent) => void) | undefined) {
  state.remote = publish;
}
