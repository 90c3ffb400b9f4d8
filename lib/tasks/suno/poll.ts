// The poller's question to a Suno channel: `POST {base}/suno/fetch {ids}` with the channel key, and
// what each answered task means for its row. A failure is a task whose status is FAILURE, or that
// carries a fail_reason without having succeeded (new-api refunds both); the poller refunds it once.
import type { RoutingChannel } from "@/lib/channels/routing";
import { isObj } from "@/lib/obj";
import { maskSensitiveText } from "@/lib/net/mask";
import type { OptionValues } from "@/lib/options";
import { SunoFetchAnswer, type SunoTaskItem } from "@/lib/tasks/suno/api";
import { sunoMessage } from "@/lib/tasks/suno/wire";
import { type OpenTask, TASK_STATUS, type TaskProgress } from "@/lib/tasks/types";
import { callVendor, vendorBase } from "@/lib/tasks/upstream";

/** new-api's fetch timeout. */
const POLL_TIMEOUT_MS = 15_000;

const KNOWN_STATUSES = new Set<string>([
  TASK_STATUS.notStart,
  TASK_STATUS.submitted,
  TASK_STATUS.queued,
  TASK_STATUS.inProgress,
  TASK_STATUS.success,
  TASK_STATUS.failure,
  TASK_STATUS.unknown,
]);

/** The row's data column is TEXT (64 KB on MySQL): a vendor answer larger than this is slimmed. */
const MAX_DATA_BYTES = 60_000;
/** What a slimmed clip keeps: its links and names, not its metadata or lyrics. */
const CLIP_FIELDS = [
  "id",
  "status",
  "title",
  "audio_url",
  "video_url",
  "image_url",
  "image_large_url",
  "model_name",
  "major_model_version",
];

export async function pollSuno(channel: RoutingChannel, tasks: readonly OpenTask[], options: OptionValues): Promise<TaskProgress[]> {
  const answer = await callVendor(channel, options, {
    method: "POST",
    url: `${vendorBase(channel)}/suno/fetch`,
    headers: { authorization: `Bearer ${channel.key}` },
    body: { ids: tasks.map((t) => t.vendorId) },
    timeoutMs: POLL_TIMEOUT_MS,
  });
  const parsed = SunoFetchAnswer.safeParse(answer.json);
  if (answer.status !== 200 || !parsed.success || parsed.data.code !== "success") {
    const said = parsed.success ? parsed.data.message : undefined;
    throw new Error(`Suno fetch answered HTTP ${answer.status}: ${maskSensitiveText(sunoMessage(said, answer.text))}`);
  }
  const byVendorId = new Map<string, OpenTask[]>();
  for (const task of tasks) byVendorId.set(task.vendorId, [...(byVendorId.get(task.vendorId) ?? []), task]);
  const out: TaskProgress[] = [];
  for (const item of parsed.data.data) {
    for (const task of byVendorId.get(item.task_id) ?? []) {
      const progress = progressOf(task, item);
      if (progress) out.push(progress);
    }
  }
  return out;
}

/** What the vendor's item changes on the task's row; null when it changes nothing. */
export function progressOf(task: OpenTask, item: SunoTaskItem): TaskProgress | null {
  const said = (item.status ?? "").trim().toUpperCase();
  const reason = (item.fail_reason ?? "").trim();
  const failed = said === TASK_STATUS.failure || (reason !== "" && said !== TASK_STATUS.success);
  const status = failed ? TASK_STATUS.failure : !said ? task.status : KNOWN_STATUSES.has(said) ? said : TASK_STATUS.unknown;
  const progress = percent(item.progress);
  const data = item.data === undefined || item.data === null ? undefined : storedData(item.data);
  const unchanged =
    status === task.status && (progress === undefined || progress === task.progress) && (data === undefined || data === task.data);
  if (unchanged) return null;
  const startTime = milliseconds(item.start_time);
  const finishTime = milliseconds(item.finish_time);
  return {
    id: task.id,
    status,
    ...(progress !== undefined && { progress }),
    ...(startTime !== undefined && { startTime }),
    ...(finishTime !== undefined && { finishTime }),
    ...(failed && reason && { failReason: maskSensitiveText(reason.slice(0, 1000)) }),
    ...(data !== undefined && { columns: { data } }),
  };
}

/** Suno-API gives unix seconds; a proxy that gives milliseconds is read as it is. */
function milliseconds(t: number | undefined): number | undefined {
  if (!t || t <= 0) return undefined;
  return Math.round(t < 1e12 ? t * 1000 : t);
}

/** "45%" as given, 45 as "45%"; anything else is no progress. */
function percent(p: string | number | undefined): string | undefined {
  if (typeof p === "number") return Number.isFinite(p) ? `${Math.min(100, Math.max(0, Math.round(p)))}%` : undefined;
  const s = (p ?? "").trim();
  if (/^\d{1,3}(\.\d+)?%$/.test(s)) return s;
  if (/^\d{1,3}(\.\d+)?$/.test(s)) return `${s}%`;
  return undefined;
}

/** The vendor's data as stored JSON text; slimmed to the clips' links when too large, left out when even that is. */
export function storedData(value: unknown): string | undefined {
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) <= MAX_DATA_BYTES) return text;
  if (!Array.isArray(value)) return undefined;
  const slim = JSON.stringify(
    value.map((clip) => (isObj(clip) ? Object.fromEntries(CLIP_FIELDS.filter((k) => k in clip).map((k) => [k, clip[k]])) : clip)),
  );
  return Buffer.byteLength(slim) <= MAX_DATA_BYTES ? slim : undefined;
}
