// Asking a proxy how its tasks are doing: `POST {base}/mj/task/list-by-condition {ids}` with the
// channel's secret, 15 s at most (new-api's). Each task object becomes a TaskProgress; the poller
// (lib/tasks/poller.ts) writes it, and fails and refunds the failed ones once.
import type { RoutingChannel } from "@/lib/channels/routing";
import type { OptionValues } from "@/lib/options";
import { callVendor, vendorBase } from "@/lib/tasks/upstream";
import { type OpenTask, TASK_STATUS, type TaskProgress } from "@/lib/tasks/types";
import { type MjTask, MjTaskList } from "@/lib/tasks/midjourney/api";

const POLL_TIMEOUT_MS = 15_000;

/** Statuses a running task may report; anything else (an empty or unknown status) leaves the row's as it is. */
const RUNNING: ReadonlySet<string> = new Set([TASK_STATUS.notStart, TASK_STATUS.submitted, TASK_STATUS.inProgress, TASK_STATUS.modal]);
/** midjourney-proxy-plus's status of a task cancelled at the proxy. */
const CANCELLED = "CANCEL";
const PROGRESS = /^\d{1,3}%$/;

/** What one task object says about a row. */
export function progressOf(task: OpenTask, item: MjTask): TaskProgress {
  const columns: Record<string, string | number> = { code: 1 };
  if (item.imageUrl) columns.image_url = item.imageUrl;
  if (item.promptEn !== undefined) columns.prompt_en = item.promptEn;
  if (item.description !== undefined) columns.description = item.description;
  if (item.state !== undefined) columns.state = item.state;
  if (item.buttons) columns.buttons = JSON.stringify(item.buttons);
  if (item.properties) columns.properties = JSON.stringify(item.properties);
  const startTime = item.startTime && item.startTime > 0 ? item.startTime : undefined;
  const finishTime = item.finishTime && item.finishTime > 0 ? item.finishTime : undefined;
  const status = item.status ?? "";
  const progress = item.progress && PROGRESS.test(item.progress) ? item.progress : undefined;
  // new-api's rule: a fail reason before 100% is a failure too, whatever the status says.
  if (status === TASK_STATUS.failure || status === CANCELLED || (item.failReason && progress !== "100%")) {
    return {
      id: task.id,
      status: TASK_STATUS.failure,
      failReason: item.failReason || (status === CANCELLED ? "任务已在上游取消" : "上游任务失败"),
      startTime,
      finishTime,
      columns,
    };
  }
  return {
    id: task.id,
    status: status === TASK_STATUS.success || RUNNING.has(status) ? status : task.status,
    progress,
    startTime,
    finishTime,
    columns,
  };
}

export async function pollMidjourney(channel: RoutingChannel, tasks: readonly OpenTask[], options: OptionValues): Promise<TaskProgress[]> {
  const out: TaskProgress[] = [];
  // A row accepted without a proxy id can never be asked about.
  for (const task of tasks) if (!task.vendorId) out.push({ id: task.id, status: TASK_STATUS.failure, failReason: "任务没有上游 ID" });
  const ids = [...new Set(tasks.map((t) => t.vendorId).filter(Boolean))];
  if (!ids.length) return out;
  const answer = await callVendor(channel, options, {
    method: "POST",
    url: `${vendorBase(channel)}/mj/task/list-by-condition`,
    headers: { "mj-api-secret": channel.key },
    body: { ids },
    timeoutMs: POLL_TIMEOUT_MS,
  });
  if (answer.status !== 200 || !Array.isArray(answer.json)) {
    throw new Error(`list-by-condition answered HTTP ${answer.status}${Array.isArray(answer.json) ? "" : " without a task list"}`);
  }
  const byId = new Map(MjTaskList.parse(answer.json).map((item) => [item.id, item]));
  for (const task of tasks) {
    const item = byId.get(task.vendorId);
    if (item) out.push(progressOf(task, item));
  }
  return out;
}
