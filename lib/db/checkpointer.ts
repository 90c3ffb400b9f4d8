// WAL checkpoints of the SQLite file, out of the relay workers' way. SQLite copies the WAL back
// into the database file (and syncs it) inside whichever commit finds the WAL past
// wal_autocheckpoint pages; in a relay worker that commit is the usage batch, on the event loop
// that answers requests. bench/tail.mjs found those the longest pauses the slowest requests met
// (a worker's longest transactions: 42–79 ms with the checkpoints in them, 16–33 ms without).
//
// So under `npm start` the console process checkpoints the file once a second, with its periodic
// jobs, and relay workers raise their own threshold far above what a second of writes makes
// (RELAY_WAL_AUTOCHECKPOINT_PAGES): they still checkpoint by themselves should the console's
// checkpoints stop, so the WAL never grows without bound. The console's requests are people's
// pages, not the relay's calls; a checkpoint costs it a few ms when the relay wrote much, nothing
// when idle.
//
// RESTART, not PASSIVE: the WAL starts over from its beginning only when a commit finds all of it
// copied back, and a passive checkpoint lets commits go on during it, so under heavy writes (the
// two workers commit some 60 times a second at 16 000 calls a second) nearly every checkpoint ended
// with new frames after it, the WAL grew to the workers' own threshold (~100 MB) and their commits
// checkpointed it (bench/README.md, "Tail latency"). RESTART holds the write lock while it copies,
// so it finishes with the whole WAL copied and the next commit starts the WAL over. It never waits:
// the connection has no busy timeout, so with a commit under way it does what PASSIVE does. A
// worker's commit that meets it gets SQLITE_BUSY and is tried again between turns of its event
// loop (lib/db/direct.ts), so the wait is the batch's, never a request's.
import { dbKind } from "@/lib/db/kind";
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { componentLogger } from "@/lib/log";

const log = componentLogger("db");

/** How often the console checkpoints the WAL. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * One checkpoint of `db`'s WAL (RESTART, never waiting): `busy` when a commit or a reader kept it
 * from copying the whole WAL back; `frames` in the WAL, `copied` of them into the file.
 */
export async function checkpointWal(db: DirectDb): Promise<{ busy: boolean; frames: number; copied: number }> {
  const row = (await db.query("PRAGMA wal_checkpoint(RESTART)"))[0] ?? {};
  return { busy: Number(row.busy) === 1, frames: Number(row.log), copied: Number(row.checkpointed) };
}

/** Checkpoints `db`'s WAL every `intervalMs` (RESTART, without waiting) until stopped; failures are logged, once a minute at most. */
export function checkpointEvery(db: () => Promise<DirectDb>, intervalMs: number): { stop(): void } {
  let failures = 0;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    db()
      .then(checkpointWal)
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
