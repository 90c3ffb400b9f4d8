// WAL checkpoints of the SQLite file, out of the relay workers' way. SQLite copies the WAL back
// into the database file (and syncs it) inside whichever commit finds the WAL past
// wal_autocheckpoint pages; in a relay worker that commit is the usage batch, on the event loop
// that answers requests. bench/tail.mjs found those the longest pauses the slowest requests met
// (a worker's longest transactions: 42–79 ms with the checkpoints in them, 16–33 ms without).
//
// So under `npm start` the console process checkpoints the file once a second, with its periodic
// jobs (PASSIVE: it never waits for, or holds up, a reader or a writer), and relay workers raise
// their own threshold far above what a second of writes makes (RELAY_WAL_AUTOCHECKPOINT_PAGES):
// they still checkpoint by themselves should the console's checkpoints stop, so the WAL never
// grows without bound. The console's requests are people's pages, not the relay's calls; a
// checkpoint costs it a few ms when the relay wrote much, nothing when idle.
import { dbKind } from "@/lib/db/kind";
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { componentLogger } from "@/lib/log";

const log = componentLogger("db");

/** How often the console checkpoints the WAL. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/** Checkpoints `db`'s WAL every `intervalMs` (PASSIVE) until stopped; failures are logged, once a minute at most. */
export function checkpointEvery(db: () => Promise<DirectDb>, intervalMs: number): { stop(): void } {
  let failures = 0;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    db()
      .then((d) => d.query("PRAGMA wal_checkpoint(PASSIVE)"))
      .catch((err) => {
        if (failures++ % Math.max(1, Math.round(60_000 / intervalMs)) === 0) log.warn({ err, failures }, "WAL checkpoint failed");
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The console's checkpoints of the SQLite file (nothing on a database server). */
export function startWalCheckpoints(): void {
  if (dbKind === "sqlite") checkpointEvery(getDirectDb, CHECKPOINT_INTERVAL_MS);
}
