// The periodic test of every channel (option ChannelTestInterval, minutes; 0 = off). It runs in
// the console process, one per instance (lib/server/console.ts starts it; relay workers never do).
// With several instances on one database, exactly one of them runs each interval: time is cut
// into slots of ChannelTestInterval minutes, and an instance runs the test of a slot only when its
// conditional UPDATE moves the lease row from the previous slot to this one (the row count says
// who won). The lease is a row of the options table under a key that is no option (the options
// cache skips unknown keys), so no table is added for it.
import { getDirectDb, type DirectDb } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import { ROLE } from "@/lib/auth/roles";
import { getOptions } from "@/lib/options";
import { testAllChannels, type ChannelTester } from "@/lib/relay/probe/test";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("channels");

export const CHANNEL_TEST_LEASE_KEY = "lease:ChannelTestSlot";
/** How often the scheduler looks at the clock; the interval itself is in whole minutes. */
const TICK_MS = 30_000;

/** The slot `nowSeconds` falls in for an interval of `minutes`. */
export const channelTestSlot = (nowSeconds: number, minutes: number) => Math.floor(nowSeconds / (minutes * 60));

/**
 * Claims `slot` for this instance: true for exactly one caller per slot, whichever instance it
 * runs in, and never for a slot at or before the last one claimed.
 */
export async function claimChannelTestSlot(slot: number, db?: DirectDb): Promise<boolean> {
  const d = db ?? (await getDirectDb());
  await d.execute(
    d.kind === "mysql"
      ? 'INSERT IGNORE INTO options ("key", "value") VALUES (?, ?)'
      : 'INSERT INTO options ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING',
    [CHANNEL_TEST_LEASE_KEY, "-1"],
  );
  const [row] = await d.query('SELECT "value" FROM options WHERE "key" = ?', [CHANNEL_TEST_LEASE_KEY]);
  const last = str(row?.value);
  if (Number(last) >= slot) return false;
  const won = await d.execute('UPDATE options SET "value" = ? WHERE "key" = ? AND "value" = ?', [
    String(slot),
    CHANNEL_TEST_LEASE_KEY,
    last,
  ]);
  return won === 1;
}

/** The scheduled tests' log rows belong to the first super admin, as if they had pressed "test all". */
async function scheduledTester(db: DirectDb): Promise<ChannelTester | null> {
  const [row] = await db.query("SELECT id, username FROM users WHERE role >= ? AND deleted_at IS NULL ORDER BY id LIMIT 1", [ROLE.root]);
  return row ? { id: int(row.id), username: str(row.username) } : null;
}

/**
 * One look at the clock: when the interval is on and this instance wins the current slot, starts
 * the test of all channels (lib/channels/jobs.ts: at most one run at a time; its progress shows on
 * the channel page). Returns whether a run was started.
 */
export async function runChannelTestTick(nowSeconds = Math.floor(Date.now() / 1000)): Promise<boolean> {
  const minutes = (await getOptions()).ChannelTestInterval;
  if (!minutes) return false;
  const db = await getDirectDb();
  if (!(await claimChannelTestSlot(channelTestSlot(nowSeconds, minutes), db))) return false;
  const tester = await scheduledTester(db);
  if (!tester) return false;
  const { started } = await testAllChannels(tester);
  return started;
}

/** Starts the scheduler of this process (once). */
export function startChannelTestSchedule(): void {
  processSingleton("channelTestTimer", () => {
    const timer = setInterval(() => {
      runChannelTestTick().catch((err) => log.error({ err }, "scheduled test failed"));
    }, TICK_MS);
    timer.unref?.();
    return timer;
  });
}
