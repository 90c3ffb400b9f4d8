// What a vendor said about one task, applied to its row: finished, failed (refunded once) or moved
// on. The poller applies every answer of its rounds; a platform that asks the vendor itself when a
// client fetches an open task (OpenAI's videos) applies that answer the same way. Its own module,
// below the registry, so a platform can use it without importing the poller (which lists them all).
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { refundTask, updateTask } from "@/lib/tasks/charge";
import { TASK_STATUS, type TaskPlatform, type TaskProgress } from "@/lib/tasks/types";

/** Refund log text per table (new-api's wording). */
const refundLog = (platform: TaskPlatform, reason: string) => (quota: bigint) =>
  platform.table === "midjourneys" ? `构图失败 ${reason}，补偿 ${quota}` : `异步任务执行失败 ${reason}，补偿 ${quota}`;

export type PollSummary = { polled: number; finished: number; failed: number; refunded: bigint };

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
