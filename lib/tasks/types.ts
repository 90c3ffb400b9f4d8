// The task framework's shared types. A task is a job a vendor runs for minutes (a Midjourney
// drawing, a Suno song, a video): submit → charge → poll → finish, or fail and refund. Each
// platform (lib/tasks/<platform>/) describes its routes, its vendor's wire format and its status
// mapping with a TaskPlatform; everything else (routing, pricing, the charge and the refund, the
// log rows, the poller) is written once in lib/tasks.
import type { RoutingChannel } from "@/lib/channels/routing";
import type { OptionValues } from "@/lib/options";
import type { ErrorShape, RelayRequest, RelayResponse } from "@/lib/relay/http";

/** Where a platform's rows live: Midjourney's table (spec §3 drawing task) or the async task table. */
export type TaskTable = "midjourneys" | "tasks";

/** Statuses shared by every platform (spec §4); "" is a row whose submit has not been answered yet. */
export const TASK_STATUS = {
  submitting: "",
  notStart: "NOT_START",
  submitted: "SUBMITTED",
  queued: "QUEUED",
  inProgress: "IN_PROGRESS",
  success: "SUCCESS",
  failure: "FAILURE",
  unknown: "UNKNOWN",
  /** Midjourney: waiting for the modal window's input. */
  modal: "MODAL",
} as const;

/** A row in one of these statuses never changes again: it is finished, or failed and refunded. */
export const FINAL_STATUSES: readonly string[] = [TASK_STATUS.success, TASK_STATUS.failure];

/** One unfinished task as the poller hands it to its platform. */
export type OpenTask = {
  id: number;
  /** The vendor's id (mj_id / task_id). */
  vendorId: string;
  channelId: number;
  userId: number;
  action: string;
  status: string;
  progress: string;
  /** Milliseconds. */
  submitTime: number;
  /** The row's stored JSON text (properties; `data` for the async table, `buttons` for Midjourney). */
  properties: string;
  data: string;
};

/** What a poll learnt about one task; fields left out are not changed. */
export type TaskProgress = {
  id: number;
  status: string;
  /** "0%"…"100%". */
  progress?: string;
  /** For FAILURE: why (shown to the user, logged with the refund). */
  failReason?: string;
  /** Milliseconds. */
  startTime?: number;
  finishTime?: number;
  /** Platform columns of the row (image_url, prompt_en, buttons, properties, data…), written as given. */
  columns?: Readonly<Record<string, string | number>>;
};

/** Answers one relay path of a platform. */
export type TaskHandler = (req: RelayRequest, requestId: string) => Promise<RelayResponse>;

export interface TaskPlatform {
  /** "midjourney", "suno", "openai-video": the `platform` column of the async table. */
  readonly name: string;
  readonly table: TaskTable;
  /** Channel types whose channels run this platform's tasks. */
  readonly channelTypes: readonly number[];
  /** How errors on this platform's paths are answered (Midjourney's, Suno's, OpenAI's shape). */
  readonly errorShape?: ErrorShape;
  /** The handler for `method path` (path without a trailing slash), or null when the path is not this platform's. */
  route(method: string, path: string): TaskHandler | null;
  /**
   * Asks the vendor about some unfinished tasks of one channel (at most 100 at a time) and says
   * what changed. Throwing leaves them as they are until the next round.
   */
  poll(channel: RoutingChannel, tasks: readonly OpenTask[], options: OptionValues): Promise<TaskProgress[]>;
}
