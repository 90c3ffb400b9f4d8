// Whether this process is draining: it got SIGTERM (lib/server/relay-worker.ts) and lets the
// streams in flight finish while it refuses new work and /readyz says 503. Read on the relay's hot
// path (lib/relay/doors/node.ts): one property read, nothing else.
import { processSingleton } from "@/lib/singleton";

const state = processSingleton<{ draining: boolean }>("drain", () => ({ draining: false }));

export function isDraining(): boolean {
  return state.draining;
}

/** From now on /readyz answers 503 and new relay requests are refused. There is no way back. */
export function startDraining(): void {
  state.draining = true;
}

/** Seconds a caller refused while this process drains is asked to wait (another instance takes it). */
export const DRAINING_RETRY_AFTER_SECONDS = 1;
