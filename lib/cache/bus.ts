// Cache invalidation events. Writers publish after a committed change; in-memory caches (relay
// keys, users, channels, options) subscribe. Listeners in this process run synchronously; remote
// publishers carry the event to the other processes of this instance (lib/server/ipc.ts) and, with
// REDIS_CONN_STRING, to the other instances (lib/cache/redis-bus.ts). Without Redis (or while it
// is down) other instances see a change within SYNC_FREQUENCY, when every cache is reloaded.
//
// A listener that reloads in the background returns the reload's promise, and publishInvalidation
// resolves once this instance's processes have applied the event (each within a bound, see
// lib/server/ipc.ts): a console write that awaits it answers only when the relay workers already
// use what it saved, so a price saved and a call made right after it never meet a stale worker.
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

/**
 * `remote`: the event was published by another process (lib/server/ipc.ts), not this one. A
 * listener that applies the event in the background returns the promise of that work (any other
 * value it returns is ignored).
 */
type Listener = (event: CacheEvent, remote: boolean) => unknown;
/** Carries an event elsewhere; a promise resolves once it has been applied there (or given up on). */
type Publisher = (event: CacheEvent) => unknown;

type BusState = { listeners: Set<Listener>; remotes: Set<Publisher> };
const state = processSingleton<BusState>("cacheBus", () => ({ listeners: new Set(), remotes: new Set() }));

export function onInvalidation(listener: Listener): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

/**
 * Delivers an event to this process's listeners only (`remote` when it came from elsewhere).
 * Resolves once every listener's background work has ended (failures are logged, never thrown).
 */
export function deliverLocally(event: CacheEvent, remote: boolean): Promise<void> {
  let pending: Promise<unknown>[] | null = null;
  for (const l of state.listeners) {
    try {
      const work = l(event, remote);
      if (work instanceof Promise) (pending ??= []).push(work);
    } catch (error) {
      log.error({ err: error }, "invalidation listener failed");
    }
  }
  return pending ? settled(pending) : DONE;
}

/**
 * Tells this process and the others (this instance's over IPC, other instances' over Redis).
 * Resolves once this instance's processes have applied it; callers on a hot path need not wait.
 */
export function publishInvalidation(event: CacheEvent): Promise<void> {
  const local = deliverLocally(event, false);
  let pending: Promise<unknown>[] | null = local === DONE ? null : [local];
  for (const remote of state.remotes) {
    try {
      const sent = remote(event);
      if (sent instanceof Promise) (pending ??= []).push(sent);
    } catch (error) {
      log.error({ err: error }, "forwarding an invalidation failed");
    }
  }
  return pending ? settled(pending) : DONE;
}

const DONE: Promise<void> = Promise.resolve();

/** Waits for every promise, whatever each one's end; a failure is logged (the caller cannot repair it). */
function settled(work: Promise<unknown>[]): Promise<void> {
  return Promise.allSettled(work).then((ends) => {
    for (const end of ends) if (end.status === "rejected") log.error({ err: end.reason }, "applying an invalidation failed");
  });
}

/** Adds a publisher that carries events beyond this process; returns its removal. */
export function addRemotePublisher(publish: Publisher): () => void {
  state.remotes.add(publish);
  return () => state.remotes.delete(publish);
}
