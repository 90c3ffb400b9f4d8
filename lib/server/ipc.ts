// Messages between the processes of `npm start` (lib/server/primary.ts starts them):
//   primary ─┬─ console  (Next: every non-relay path, over a Unix socket)
//            └─ relay workers × RELAY_WORKERS (node:cluster; they share PORT)
// Every child forwards the cache invalidations it publishes to the primary, which passes them to
// every other child, so a channel disabled in the console is gone from the relay at once.
import { deliverLocally, addRemotePublisher, type CacheEvent } from "@/lib/cache/bus";
import type { HitLogAnswer, HitLogAsk } from "@/lib/server/hit-log";
import type { LimitsAnswer, LimitsAsk, LimitsReclaim } from "@/lib/server/limits-ipc";
import type { MetricsAnswer, MetricsAsk, MetricsCollect, MetricsReport } from "@/lib/server/metrics-ipc";

export type ServerMessage =
  | { qiao: "cache"; event: CacheEvent }
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
 * In a child process: invalidations published here go to the primary (and from there to the
 * other processes); those arriving from it are delivered to this process's caches.
 */
export function bridgeCacheBusToParent(onOrphaned: () => void = () => process.exit(0)) {
  if (!process.send) return;
  addRemotePublisher((event) => toParent({ qiao: "cache", event }));
  process.on("message", (m: unknown) => {
    if (isServerMessage(m) && m.qiao === "cache") deliverLocally(m.event, true);
  });
  // The primary is gone (crashed or killed): do not linger as an orphan.
  process.on("disconnect", onOrphaned);
}
