// Messages between the processes of `npm start` (lib/server/primary.ts starts them):
//   primary ─┬─ console  (Next: every non-relay path, over a Unix socket)
//            └─ relay workers × RELAY_WORKERS (node:cluster; they share PORT)
// Every child forwards the cache invalidations it publishes to the primary, which passes them to
// every other child, so a channel disabled in the console is gone from the relay at once. Each
// one is acknowledged: a child answers "cache-applied" once its caches have applied the event
// (an options reload included), the primary answers the publisher once every other child has (or
// has exited, or APPLY_WAIT_MS has passed), and the publisher's publishInvalidation resolves then.
import { deliverLocally, addRemotePublisher, type CacheEvent } from "@/lib/cache/bus";
import type { HitLogAnswer, HitLogAsk } from "@/lib/server/hit-log";
import type { LimitsAnswer, LimitsAsk, LimitsReclaim } from "@/lib/server/limits-ipc";
import type { MetricsAnswer, MetricsAsk, MetricsCollect, MetricsReport } from "@/lib/server/metrics-ipc";

export type ServerMessage =
  /** child → primary → every other child; `ack`: answer "cache-applied" with it once applied. */
  | { qiao: "cache"; event: CacheEvent; ack?: number }
  | { qiao: "cache-applied"; ack: number }
  /** console → primary: migrations are applied and root exists; relay workers may start. */
  | { qiao: "db-ready" }
  /** console → primary → workers: Next answers on this Unix socket. */
  | { qiao: "console-ready"; socket: string }
  /** primary → workers: the console process exited; hold console requests until it is back. */
  | { qiao: "console-down" }
  /** relay worker → primary: listening on PORT. */
  | { qiao: "listening" }
  /** relay worker → primary → that worker: the request limits' shared logs (lib/server/hit-log.ts). */
  | HitLogAsk
  | HitLogAnswer
  /** relay worker or console → primary → that child: the request limits' counters (lib/server/limits-ipc.ts). */
  | LimitsAsk
  | LimitsAnswer
  /** primary → relay worker: give back your shares of these limits (lib/limits/grants.ts). */
  | LimitsReclaim
  /** relay worker → primary → every child → primary → that worker: a scrape of /metrics (lib/server/metrics-ipc.ts). */
  | MetricsAsk
  | MetricsCollect
  | MetricsReport
  | MetricsAnswer;

export function isServerMessage(m: unknown): m is ServerMessage {
  return typeof m === "object" && m !== null && typeof (m as { qiao?: unknown }).qiao === "string";
}

/** Sends to the parent process; a no-op when there is none (or it has gone). */
export function toParent(message: ServerMessage) {
  if (process.send && process.connected) process.send(message, undefined, undefined, () => undefined);
}

/**
 * How long a publisher waits for the other processes to apply an invalidation (a process that is
 * stuck, or busy for longer, applies it late; the publisher's answer goes out anyway).
 */
export const APPLY_WAIT_MS = 2_000;

/**
 * Acknowledgements awaited, by id: `wait(send)` sends with a fresh id and resolves when `applied`
 * hears it, or after APPLY_WAIT_MS.
 */
export function applyWaits() {
  const pending = new Map<number, () => void>();
  let last = 0;
  return {
    wait(send: (ack: number) => void): Promise<void> {
      const ack = ++last;
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          pending.delete(ack);
          resolve();
        };
        const timer = setTimeout(done, APPLY_WAIT_MS);
        timer.unref();
        pending.set(ack, done);
        send(ack);
      });
    },
    applied(ack: number) {
      pending.get(ack)?.();
    },
  };
}

/**
 * In a child process: invalidations published here go to the primary (and from there to the
 * other processes; the publisher's promise resolves once they applied them); those arriving from
 * it are delivered to this process's caches and acknowledged once applied.
 */
export function bridgeCacheBusToParent(onOrphaned: () => void = () => process.exit(0)) {
  if (!process.send) return;
  const waits = applyWaits();
  addRemotePublisher((event) => (process.connected ? waits.wait((ack) => toParent({ qiao: "cache", event, ack })) : undefined));
  process.on("message", (m: unknown) => {
    if (!isServerMessage(m)) return;
    if (m.qiao === "cache") {
      const applied = deliverLocally(m.event, true);
      const { ack } = m;
      if (ack !== undefined) void applied.then(() => toParent({ qiao: "cache-applied", ack }));
    } else if (m.qiao === "cache-applied") waits.applied(m.ack);
  });
  // The primary is gone (crashed or killed): do not linger as an orphan.
  process.on("disconnect", onOrphaned);
}
