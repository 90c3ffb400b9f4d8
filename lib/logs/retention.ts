// Log retention: once a day, on one instance, delete each log type's rows older than the days the
// settings keep it (LogRetention*Days, 0 = for ever, the default), in the manual cleanup's batches
// (lib/logs/query.ts deleteLogsBefore: 5 000 rows by id range a statement, a pause between), so
// SQLite, PostgreSQL and MariaDB never hold a long lock on the log.
//
// One instance a day: a lease (lib/db/lease.ts) under "lease:LogRetention" lasting a day, taken
// only once it has run out (never renewed), so however many instances check each hour, the job
// runs once per day. The lease saves work, not rows: each batch deletes by id range and counts
// what it really deleted, so two runs racing delete each row once and their counts add up.
import { randomBytes } from "node:crypto";
import type { DirectDb } from "@/lib/db/direct";
import { claimLease } from "@/lib/db/lease";
import { type CleanupOptions, deleteLogsBefore } from "@/lib/logs/query";
import { logTypeLook } from "@/lib/logs/display";
import { LOG_TYPE } from "@/lib/logs/write";
import { getOptions, type OptionValues } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("logs");

export const LOG_RETENTION_LEASE_KEY = "lease:LogRetention";
const DAY_MS = 24 * 60 * 60 * 1000;
/** The job runs at most once per this, whichever instance runs it. */
export const RETENTION_EVERY_MS = DAY_MS;
/** How often each instance asks for the lease. */
const CHECK_EVERY_MS = 60 * 60 * 1000;
/** The first check after start: not in the middle of the start itself. */
const FIRST_CHECK_MS = 60 * 1000;

/** Each log type with the option holding its days. */
export const RETENTION_DAYS = [
  { type: LOG_TYPE.topup, days: (o: OptionValues) => o.LogRetentionTopupDays },
  { type: LOG_TYPE.consume, days: (o: OptionValues) => o.LogRetentionConsumeDays },
  { type: LOG_TYPE.manage, days: (o: OptionValues) => o.LogRetentionManageDays },
  { type: LOG_TYPE.system, days: (o: OptionValues) => o.LogRetentionSystemDays },
  { type: LOG_TYPE.error, days: (o: OptionValues) => o.LogRetentionErrorDays },
] as const;

/** Rows deleted per log type (only the types with a retention set). */
export type RetentionResult = { type: number; days: number; before: number; deleted: number }[];

/** Deletes each type's rows older than its days (unix s cut-off `nowSec - days × 86 400`). */
export async function deleteExpiredLogs(options: OptionValues, nowSec: number, o: CleanupOptions = {}): Promise<RetentionResult> {
  const result: RetentionResult = [];
  for (const entry of RETENTION_DAYS) {
    const days = entry.days(options);
    if (days <= 0) continue;
    const before = nowSec - days * 86_400;
    result.push({ type: entry.type, days, before, deleted: await deleteLogsBefore(before, { ...o, type: entry.type }) });
  }
  return result;
}

const instanceId = processSingleton("logRetentionId", () => `${process.pid}-${randomBytes(4).toString("hex")}`);

export type RetentionRun = { holder?: string; now?: number; db?: DirectDb } & CleanupOptions;

/** One check: when this instance takes the day's lease, the retention runs; null when another has it. */
export async function runLogRetention(run: RetentionRun = {}): Promise<RetentionResult | null> {
  const { holder = instanceId, now = Date.now(), db, ...cleanup } = run;
  const won = await claimLease({ key: LOG_RETENTION_LEASE_KEY, holder, now, ttlMs: RETENTION_EVERY_MS, renew: false }, db);
  if (!won) return null;
  const result = await deleteExpiredLogs(await getOptions(), Math.floor(now / 1000), cleanup);
  if (result.length > 0) {
    log.info({ deleted: result.map((r) => ({ type: logTypeLook(r.type).label, rows: r.deleted, days: r.days })) }, "retention deleted");
  }
  return result;
}

/** Starts this process's retention checks (once); the console process of each instance runs it. */
export function startLogRetention(): void {
  processSingleton("logRetentionTimer", () => {
    let running = false;
    const check = () => {
      if (running) return;
      running = true;
      runLogRetention()
        .catch((err) => log.error({ err }, "retention failed"))
        .finally(() => {
          running = false;
        });
    };
    const first = setTimeout(check, FIRST_CHECK_MS);
    first.unref?.();
    const timer = setInterval(check, CHECK_EVERY_MS);
    timer.unref?.();
    return timer;
  });
}
