// The task poller: every 15 s, on one instance only, ask each vendor about its unfinished tasks,
// finish the ones that are done, and fail (and refund, once) the ones that failed, that ran for
// more than an hour, whose channel is gone, or whose submit never got an answer.
//
// One instance: the round is taken by a lease, a row of the options table under a key that is no
// option (as the channel test's slot, lib/relay/probe/schedule.ts): "<holder>@<expires ms>". An
// instance takes it when it has expired or is its own, with an UPDATE conditional on the value it
// read, so of several instances (and no Redis) exactly one polls at a time; if that one dies, its
// lease runs out and another takes over. Nothing here needs the lease for safety: every write is
// conditional on the row's state (lib/tasks/charge.ts), so two pollers racing, or a restart
// mid-round, can repeat work but never refund twice.
import { randomBytes } from "node:crypto";
import { type DirectDb, getDirectDb, type Row } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import { quoteIdent } from "@/lib/logs/insert";
import { getOptions } from "@/lib/options";
import { routingTable, startRelayState } from "@/lib/relay/memory/key-user-channel-cache";
import { processSingleton } from "@/lib/singleton";
import { refundTask, updateTask } from "@/lib/tasks/charge";
import { TASK_PLATFORMS } from "@/lib/tasks/registry";
import { FINAL_STATUSES, type OpenTask, TASK_STATUS, type TaskPlatform, type TaskProgress } from "@/lib/tasks/types";

export const TASK_POLL_LEASE_KEY = "lease:TaskPoller";
export const POLL_INTERVAL_MS = 15_000;
/** A lease not renewed for this long is free: three rounds. */
export const LEASE_MS = 45_000;
/** A task not finished this long after its submit is failed and refunded. */
export const TASK_TIMEOUT_MS = 60 * 60 * 1000;
/** A row still submitting this long after its submit (the instance died while asking the vendor) is failed and refunded. */
export const SUBMIT_STALE_MS = 10 * 60 * 1000;
/** Unfinished tasks read per platform and round, oldest first. */
const ROUND_LIMIT = 500;
/** Tasks per vendor request. */
const BATCH = 100;

export const TIMEOUT_REASON = "上游任务超时（超过1小时）";
export const STALE_SUBMIT_REASON = "提交未得到上游答复（服务中断），已退还额度";
export const CHANNEL_GONE_REASON = "任务所在渠道已删除，已退还额度";

/** Refund log text per table (new-api's wording). */
const refundLog = (platform: TaskPlatform, reason: string) => (quota: bigint) =>
  platform.table === "midjourneys" ? `构图失败 ${reason}，补偿 ${quota}` : `异步任务执行失败 ${reason}，补偿 ${quota}`;

const instanceId = processSingleton("taskPollerId", () => `${process.pid}-${randomBytes(4).toString("hex")}`);

/** Takes or renews the poll lease; true when this instance holds it until `now + LEASE_MS`. */
export async function claimPollLease(holder: string = instanceId, now = Date.now(), db?: DirectDb): Promise<boolean> {
  const d = db ?? (await getDirectDb());
  await d.execute(
    d.kind === "mysql"
      ? 'INSERT IGNORE INTO options ("key", "value") VALUES (?, ?)'
      : 'INSERT INTO options ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING',
    [TASK_POLL_LEASE_KEY, ""],
  );
  const [row] = await d.query('SELECT "value" FROM options WHERE "key" = ?', [TASK_POLL_LEASE_KEY]);
  const current = str(row?.value);
  const at = current.lastIndexOf("@");
  const owner = at > 0 ? current.slice(0, at) : "";
  const expires = at > 0 ? Number(current.slice(at + 1)) : 0;
  if (owner !== holder && expires > now) return false;
  const won = await d.execute('UPDATE options SET "value" = ? WHERE "key" = ? AND "value" = ?', [
    `${holder}@${now + LEASE_MS}`,
    TASK_POLL_LEASE_KEY,
    current,
  ]);
  return won === 1;
}

export type PollSummary = { polled: number; finished: number; failed: number; refunded: bigint };

function openTaskOf(platform: TaskPlatform, row: Row): OpenTask {
  return {
    id: int(row.id),
    vendorId: str(platform.table === "midjourneys" ? row.mj_id : row.task_id),
    channelId: int(row.channel_id),
    userId: int(row.user_id),
    action: str(row.action),
    status: str(row.status),
    progress: str(row.progress),
    submitTime: int(row.submit_time),
    properties: str(row.properties),
    data: platform.table === "midjourneys" ? str(row.buttons) : str(row.data),
  };
}

/** Unfinished tasks of a platform, oldest first. */
async function openTasks(d: DirectDb, platform: TaskPlatform): Promise<OpenTask[]> {
  const table = quoteIdent(d.kind, platform.table);
  const vendor = platform.table === "midjourneys" ? "mj_id" : "task_id";
  const extra = platform.table === "midjourneys" ? "buttons" : "data";
  const byPlatform = platform.table === "tasks" ? " AND platform = ?" : "";
  const finals = FINAL_STATUSES.map(() => "?").join(", ");
  const rows = await d.query(
    `SELECT id, ${vendor}, channel_id, user_id, action, status, progress, submit_time, properties, ${extra} FROM ${table} WHERE status NOT IN (${finals})${byPlatform} ORDER BY id LIMIT ${ROUND_LIMIT}`,
    platform.table === "tasks" ? [...FINAL_STATUSES, platform.name] : [...FINAL_STATUSES],
  );
  return rows.map((row) => openTaskOf(platform, row));
}

/**
 * Applies what the vendor said about one task: finished, failed (refunded once) or moved on. The
 * poller calls it; so may a platform that asks the vendor itself when a client fetches an open task.
 */
export async function applyTaskProgress(
  platform: TaskPlatform,
  p: TaskProgress,
  summary: PollSummary = { polled: 0, finished: 0, failed: 0, refunded: 0n },
  db?: DirectDb,
): Promise<void> {
  const d = db ?? (await getDirectDb());
  if (p.status === TASK_STATUS.failure) {
    const reason = p.failReason || "上游任务失败";
    const refunded = await refundTask(
      platform.table,
      p.id,
      { reason, logContent: refundLog(platform, reason), columns: p.columns, finishTime: p.finishTime },
      d,
    );
    if (refunded !== null) {
      summary.failed++;
      summary.refunded += refunded;
    }
    return;
  }
  const columns: Record<string, string | number> = { ...p.columns, status: p.status };
  if (p.progress !== undefined) columns.progress = p.progress;
  if (p.startTime !== undefined) columns.start_time = p.startTime;
  if (p.finishTime !== undefined) columns.finish_time = p.finishTime;
  if (p.status === TASK_STATUS.success) {
    columns.progress = "100%";
    columns.finish_time ??= Date.now();
  }
  if (platform.table === "tasks") columns.updated_at = Math.floor(Date.now() / 1000);
  if ((await updateTask(platform.table, p.id, columns, d)) && p.status === TASK_STATUS.success) summary.finished++;
}

async function fail(platform: TaskPlatform, id: number, reason: string, summary: PollSummary, d: DirectDb): Promise<void> {
  const refunded = await refundTask(platform.table, id, { reason, logContent: refundLog(platform, reason) }, d);
  if (refunded !== null) {
    summary.failed++;
    summary.refunded += refunded;
  }
}

/**
 * One round over every platform (whoever calls it: the poller after taking the lease, or a test).
 * A vendor that cannot be reached leaves its tasks for the next round; the hour's limit still applies.
 */
export async function pollTasksOnce(now = Date.now(), db?: DirectDb): Promise<PollSummary> {
  const d = db ?? (await getDirectDb());
  const summary: PollSummary = { polled: 0, finished: 0, failed: 0, refunded: 0n };
  const options = await getOptions();
  // The channels as they are now (the console process may never have started the relay's caches).
  startRelayState();
  const table = await routingTable();
  for (const platform of TASK_PLATFORMS) {
    const byChannel = new Map<number, OpenTask[]>();
    for (const task of await openTasks(d, platform)) {
      if (task.status === TASK_STATUS.submitting) {
        if (now - task.submitTime > SUBMIT_STALE_MS) await fail(platform, task.id, STALE_SUBMIT_REASON, summary, d);
        continue; // its submit is still being answered
      }
      if (now - task.submitTime > TASK_TIMEOUT_MS) {
        await fail(platform, task.id, TIMEOUT_REASON, summary, d);
        continue;
      }
      const list = byChannel.get(task.channelId);
      if (list) list.push(task);
      else byChannel.set(task.channelId, [task]);
    }
    for (const [channelId, tasks] of byChannel) {
      const channel = table.byId.get(channelId);
      if (!channel) {
        for (const task of tasks) await fail(platform, task.id, CHANNEL_GONE_REASON, summary, d);
        continue;
      }
      // A disabled channel is still asked: its tasks were accepted and run at the vendor.
      for (let i = 0; i < tasks.length; i += BATCH) {
        const batch = tasks.slice(i, i + BATCH);
        let answers: TaskProgress[];
        try {
          answers = await platform.poll(channel.row, batch, options);
        } catch (error) {
          console.warn(`[tasks] polling ${platform.name} on channel #${channelId} failed:`, error instanceof Error ? error.message : error);
          continue;
        }
        summary.polled += batch.length;
        const ids = new Set(batch.map((t) => t.id));
        for (const answer of answers) if (ids.has(answer.id)) await applyTaskProgress(platform, answer, summary, d);
      }
    }
  }
  return summary;
}

/** One tick of the poller: a round when this instance holds the lease. */
export async function runTaskPollTick(): Promise<PollSummary | null> {
  if (!(await claimPollLease())) return null;
  return pollTasksOnce();
}

/** Starts this process's poller (once); the console process of each instance runs it. */
export function startTaskPoller(): void {
  processSingleton("taskPollerTimer", () => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return; // a slow round is not overlapped by the next
      running = true;
      runTaskPollTick()
        .catch((error) => console.error("[tasks] poll round failed:", error))
        .finally(() => {
          running = false;
        });
    }, POLL_INTERVAL_MS);
    timer.unref?.();
    return timer;
  });
}
