// A lease: a row of the options table under a key that is no option ("lease:<job>"), valued
// "<holder>@<expires ms>". An instance takes it with an UPDATE conditional on the value it read, so
// of several instances sharing a database (and no Redis) exactly one wins; when the winner dies,
// its lease runs out and another takes over. The task poller (lib/tasks/poller.ts) renews its own
// lease every round; the daily log retention (lib/logs/retention.ts) and the master's minute sweep of
// orphaned holds (lib/relay/memory/runtime.ts) take one only once it has run out.
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { str } from "@/lib/db/num";

export type LeaseClaim = {
  key: string;
  holder: string;
  /** Unix ms. */
  now: number;
  /** How long a taken lease lasts. */
  ttlMs: number;
  /** Whether the holder may take its own lease again before it runs out (renewal). */
  renew: boolean;
};

/** Takes the lease; true when `holder` now holds it until `now + ttlMs`. */
export async function claimLease(c: LeaseClaim, db?: DirectDb): Promise<boolean> {
  const d = db ?? (await getDirectDb());
  await d.execute(
    d.kind === "mysql"
      ? 'INSERT IGNORE INTO options ("key", "value") VALUES (?, ?)'
      : 'INSERT INTO options ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING',
    [c.key, ""],
  );
  const [row] = await d.query('SELECT "value" FROM options WHERE "key" = ?', [c.key]);
  const current = str(row?.value);
  const at = current.lastIndexOf("@");
  const owner = at > 0 ? current.slice(0, at) : "";
  const expires = at > 0 ? Number(current.slice(at + 1)) : 0;
  if (expires > c.now && !(c.renew && owner === c.holder)) return false;
  const won = await d.execute('UPDATE options SET "value" = ? WHERE "key" = ? AND "value" = ?', [
    `${c.holder}@${c.now + c.ttlMs}`,
    c.key,
    current,
  ]);
  return won === 1;
}
