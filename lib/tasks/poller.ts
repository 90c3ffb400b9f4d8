// The task poller: every 15 s, on one instance only, ask each vendor about its unfinished tasks,
// finish the ones that are done, and fail (and refund, once) the ones that failed, that ran for
// more than an hour, whose channel is gone, or whose submit never got an answer.
//
// One instance: the round is taken by a lease (lib/db/lease.ts), a row of the options table under
// a key that is no option: an instance takes it when it has expired or is its own, so of several
// instances (and no Redis) exactly one polls at a time; if that one dies, its lease runs out and
// another takes over. Nothing here needs the lease for safety: every write is
// conditional on the row's state (lib/tasks/charge.ts), so two pollers racing, or a restart
// mid-round, can repeat work but never refund twice.
import { randomBytes } from "node:crypto";
import { type DirectDb, getDirectDb, type Row } from "@/lib/db/direct";
import { claimLease } from "@/lib/db/lease";
import { int, str } from "@/lib/db/num";
import { loadChannelsForRouting } from "@/lib/channels/routing";
import { quoteIdent } from "@/lib/logs/insert";
import { getOptions } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";
import { applyTaskProgress, type PollSummary } from "@/lib/tasks/progress";
import { TASK_PLATFORMS } from "@/lib/tasks/registry";
import { FINAL_STATUSES, type OpenTask, TASK_STATUS, type TaskPlatform, type TaskProgress } from "@/lib/tasks/types";
import { componentLogger } from "@/lib/log";

const log = componentLogger("tasks");

export type { PollSummary } from "@/lib/tasks/progress";

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

const instanceId = processSingleton("taskPollerId", () => `${process.pid}-${randomBytes(4).toString("hex")}`);

/** Takes or renews the poll lease; true when this instance holds it until `now + LEASE_MS`. */
export function claimPollLease(holder: string = instanceId, now = Date.now(), db?: DirectDb): Promise<boolean> {
  return claimLease({ key: TASK_POLL_LEASE_KEY, holder, now, ttlMs: LEASE_MS, renew: true }, db);
}

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

/** Fails and refunds a task the vendor was not asked about (timed out, channel gone, never answered). */
function fail(platform: TaskPlatform, id: number, reason: string, summary: PollSummary, d: DirectDb): Promise<void> {
  return applyTaskProgress(platform, { id, status: TASK_STATUS.failure, failReason: reason }, summary, d);
}

/**
 * One round over every platform (whoever calls it: the poller after taking the lease, or a test).
 * A vendor that cannot be reached leaves its tasks for the next round; the hour's limit still applies.
 */
export async function pollTasksOnce(now = Date.now(), db?: DirectDb): Promise<PollSummary> {
  const d = db ?? (await getDirectDb());
  const summary: PollSummary = { polled: 0, finished: 0, failed: 0, refunded: 0n };
  const options = await getOptions();
  // Read each round, not the relay's cached table: the poller runs in the console process, where
  // nothing keeps that table current, and a channel created or deleted since must count.
  const channels = new Map((await loadChannelsForRouting()).map((c) => [c.id, c]));
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
      const channel = channels.get(channelId);
      if (!channel) {
        for (const task of tasks) await fail(platform, task.id, CHANNEL_GONE_REASON, summary, d);
        continue;
      }
      // A disabled channel is still asked: its tasks were accepted and run at the vendor.
      for (let i = 0; i < tasks.length; i += BATCH) {
        const batch = tasks.slice(i, i + BATCH);
        let answers: TaskProgress[];
        try {
          answers = await platform.poll(channel, batch, options);
        } catch (error) {
          log.warn({ err: error, platform: platform.name, channelId }, "polling failed");
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

/** Starts this process's poller (once); the console process of each instance runs it (lib/server/console.ts). */
export function startTaskPoller(): void {
  processSingleton("taskPollerTimer", () => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return; // a slow round is not overlapped by the next
      running = true;
      runTaskPollTick()
        .catch((err) => log.error({ err }, "poll round failed"))
        .finally(() => {
          running = false;
        });
    }, POLL_INTERVAL_MS);
    timer.unref?.();
    return timer;
  });
}
