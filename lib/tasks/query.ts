// Reading the drawing tasks (midjourneys) and the async tasks (tasks: Suno, video) for the console:
// GET /api/mj/ and /api/task/ (admin, every user's rows, a channel filter), /api/mj/self/ and
// /api/task/self (the caller's own), and the /midjourney and /task pages. Newest first by id; the
// time range is Unix seconds in the query and milliseconds in the rows' submit_time; count and
// page run in parallel.
//
// What never leaves here: the charged key and the request id (token_id, request_id), the vendor's
// image address (image_url becomes our /mj/image/{mj_id} proxy), the vendor's raw `data` JSON
// (audio and video links among it) and, for users, the channel and any address or secret in a
// vendor's failure text.
import { z } from "zod";
import { pageQuery, queryNumber, queryTime } from "@/lib/api/envelope";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { INT_COLUMN_MAX, num } from "@/lib/db/num";
import { type Page, pagedFind } from "@/lib/db/paging";
import { startOfDay } from "@/lib/logs/range";
import { hideSecrets, maskSensitiveText } from "@/lib/net/mask";
import { drawingImagePath } from "@/lib/tasks/view";

export const TASK_QUERY_MSG = { channelOutOfRange: "渠道 ID 超出范围" } as const;

/** A channel id; empty, malformed or not positive means "not filtered" (0); past an Int column is refused. */
const channelFilter = queryNumber.transform((v, ctx) => {
  if (v === undefined || !Number.isInteger(v) || v <= 0) return 0;
  if (v > INT_COLUMN_MAX) {
    ctx.addIssue({ code: "custom", message: TASK_QUERY_MSG.channelOutOfRange });
    return z.NEVER;
  }
  return v;
});
/** A task id as the vendor gave it; matched exactly. */
const idFilter = z.string().trim().max(191).optional().default("");

/** GET /api/mj/ and /api/mj/self/: channel_id counts for admins only. */
export const drawingQuerySchema = z.object({
  ...pageQuery,
  channel_id: channelFilter,
  mj_id: idFilter,
  start_timestamp: queryTime,
  end_timestamp: queryTime,
});

/** GET /api/task/ and /api/task/self: channel_id counts for admins only. */
export const asyncTaskQuerySchema = z.object({
  ...pageQuery,
  channel_id: channelFilter,
  task_id: idFilter,
  start_timestamp: queryTime,
  end_timestamp: queryTime,
});

export type DrawingQuery = z.output<typeof drawingQuerySchema>;
export type AsyncTaskQuery = z.output<typeof asyncTaskQuerySchema>;

/** Whose rows: a user's, or everyone's (an admin) when `userId` is undefined. */
type Owner = { userId?: number };

export type DrawingFilter = Owner & Partial<DrawingQuery>;
export type AsyncTaskFilter = Owner & Partial<AsyncTaskQuery>;

/** The pages' filters, as their URLs and forms hold them (0 / "" = not filtered). */
export type DrawingFilters = Pick<DrawingQuery, "channel_id" | "mj_id" | "start_timestamp" | "end_timestamp">;
export type AsyncTaskFilters = Pick<AsyncTaskQuery, "channel_id" | "task_id" | "start_timestamp" | "end_timestamp">;

const MS = 1000;

/** submit_time (ms) within the range given in seconds, both ends included to the last ms of the end's second. */
function submitRange(q: { start_timestamp?: number; end_timestamp?: number }): Prisma.BigIntFilter | undefined {
  if (!q.start_timestamp && !q.end_timestamp) return undefined;
  return {
    ...(q.start_timestamp ? { gte: BigInt(q.start_timestamp) * BigInt(MS) } : {}),
    ...(q.end_timestamp ? { lte: BigInt(q.end_timestamp) * BigInt(MS) + BigInt(MS - 1) } : {}),
  };
}

/** The owner and channel part of a filter: a user sees their own rows and never filters by channel. */
function ownerWhere(f: Owner & { channel_id?: number }): { user_id?: number; channel_id?: number } {
  if (f.userId !== undefined) return { user_id: f.userId };
  return f.channel_id ? { channel_id: f.channel_id } : {};
}

/** Vendor failure text: admins read it with secrets cut out, users also without addresses. */
const failText = (text: string, admin: boolean) => (admin ? hideSecrets(text) : maskSensitiveText(text));

const DRAWING_SELECT = {
  id: true,
  submit_time: true,
  finish_time: true,
  channel_id: true,
  action: true,
  mj_id: true,
  code: true,
  status: true,
  progress: true,
  image_url: true,
  prompt: true,
  prompt_en: true,
  fail_reason: true,
  quota: true,
} as const;

type DrawingRow = Prisma.MidjourneyGetPayload<{ select: typeof DRAWING_SELECT }>;

/** A drawing task as the console reads it (spec §3); `channel_id` only for admins. */
export type DrawingItem = {
  id: number;
  /** Unix milliseconds. */
  submit_time: number;
  /** Unix milliseconds; 0 while unfinished. */
  finish_time: number;
  channel_id?: number;
  action: string;
  mj_id: string;
  code: number;
  status: string;
  progress: string;
  /** Our image proxy's path, "" when the task has no image. */
  image_url: string;
  prompt: string;
  prompt_en: string;
  fail_reason: string;
  /** What the user was charged. */
  quota: number;
};

function toDrawingItem(row: DrawingRow, admin: boolean): DrawingItem {
  const { channel_id, ...rest } = row;
  return {
    ...rest,
    ...(admin ? { channel_id } : {}),
    submit_time: num(row.submit_time),
    finish_time: num(row.finish_time),
    quota: num(row.quota),
    image_url: row.image_url && row.mj_id ? drawingImagePath(row.mj_id) : "",
    fail_reason: failText(row.fail_reason, admin),
  };
}

const NEWEST_FIRST = { id: "desc" } as const;

/** Drawing tasks newest first: one user's (`userId`), or every user's for an admin, filtered by channel, task id and submit time. */
export async function listDrawingTasks(f: DrawingFilter): Promise<Page<DrawingItem>> {
  const admin = f.userId === undefined;
  const where: Prisma.MidjourneyWhereInput = {
    ...ownerWhere(f),
    ...(f.mj_id ? { mj_id: f.mj_id } : {}),
    submit_time: submitRange(f),
  };
  const db = await getDb();
  return pagedFind(f, {
    count: () => db.midjourney.count({ where }),
    rows: (window) => db.midjourney.findMany({ where, select: DRAWING_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: (rows) => rows.map((row) => toDrawingItem(row, admin)),
  });
}

const TASK_SELECT = {
  id: true,
  submit_time: true,
  finish_time: true,
  progress: true,
  channel_id: true,
  platform: true,
  action: true,
  task_id: true,
  status: true,
  fail_reason: true,
  quota: true,
} as const;

type TaskRow = Prisma.TaskGetPayload<{ select: typeof TASK_SELECT }>;

/**
 * An async task as the console reads it (spec §3); `channel_id` only for admins. The vendor's
 * result (`data`: audio or video links) is not part of it: a video is fetched through
 * /v1/videos/{task_id}/content with a key.
 */
export type AsyncTaskItem = {
  id: number;
  /** Unix milliseconds. */
  submit_time: number;
  /** Unix milliseconds; 0 while unfinished. */
  finish_time: number;
  progress: string;
  channel_id?: number;
  platform: string;
  action: string;
  task_id: string;
  status: string;
  fail_reason: string;
  /** What the user was charged. */
  quota: number;
};

function toAsyncTaskItem(row: TaskRow, admin: boolean): AsyncTaskItem {
  const { channel_id, ...rest } = row;
  return {
    ...rest,
    ...(admin ? { channel_id } : {}),
    submit_time: num(row.submit_time),
    finish_time: num(row.finish_time),
    quota: num(row.quota),
    fail_reason: failText(row.fail_reason, admin),
  };
}

/** Async tasks newest first: one user's (`userId`), or every user's for an admin, filtered by channel, task id and submit time. */
export async function listAsyncTasks(f: AsyncTaskFilter): Promise<Page<AsyncTaskItem>> {
  const admin = f.userId === undefined;
  const where: Prisma.TaskWhereInput = {
    ...ownerWhere(f),
    ...(f.task_id ? { task_id: f.task_id } : {}),
    submit_time: submitRange(f),
  };
  const db = await getDb();
  return pagedFind(f, {
    count: () => db.task.count({ where }),
    rows: (window) => db.task.findMany({ where, select: TASK_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: (rows) => rows.map((row) => toAsyncTaskItem(row, admin)),
  });
}

const HOUR = 3600;
const DRAWING_LOOKBACK = 30 * 24 * HOUR;

/** The default time ranges (spec §9): drawings from 30 days back, tasks from midnight today; both to an hour ahead. */
export function defaultDrawingRange(now: number) {
  return { start_timestamp: now - DRAWING_LOOKBACK, end_timestamp: now + HOUR };
}
export function defaultAsyncTaskRange(now: number, timeZone?: string) {
  return { start_timestamp: startOfDay(now, timeZone), end_timestamp: now + HOUR };
}

/**
 * A page's filters from its URL, each read as the list route reads it: a value it would refuse is
 * dropped, a time the URL does not name (or garbles) takes the default (an explicit 0 means "no
 * bound"), and only an admin keeps the channel.
 */
function filtersOf<K extends string>(
  get: (key: K | "channel_id" | "start_timestamp" | "end_timestamp") => string,
  idKey: K,
  admin: boolean,
  range: { start_timestamp: number; end_timestamp: number },
) {
  const time = (key: "start_timestamp" | "end_timestamp") => {
    const raw = get(key);
    const value = Number(raw);
    return raw !== "" && Number.isInteger(value) && value >= 0 && value <= INT_COLUMN_MAX ? value : range[key];
  };
  const channel = channelFilter.safeParse(get("channel_id"));
  const id = idFilter.safeParse(get(idKey));
  return {
    channel_id: admin && channel.success ? channel.data : 0,
    [idKey]: id.success ? id.data : "",
    start_timestamp: time("start_timestamp"),
    end_timestamp: time("end_timestamp"),
  } as { channel_id: number; start_timestamp: number; end_timestamp: number } & Record<K, string>;
}

export const DRAWING_FILTER_KEYS = ["channel_id", "mj_id", "start_timestamp", "end_timestamp"] as const;
export const ASYNC_TASK_FILTER_KEYS = ["channel_id", "task_id", "start_timestamp", "end_timestamp"] as const;

/** /midjourney's filters from its URL; `now` in Unix seconds. */
export function drawingFiltersOf(get: (key: (typeof DRAWING_FILTER_KEYS)[number]) => string, admin: boolean, now: number): DrawingFilters {
  return filtersOf(get, "mj_id", admin, defaultDrawingRange(now));
}

/** /task's filters from its URL; `now` in Unix seconds, midnight in the viewer's `timeZone`. */
export function asyncTaskFiltersOf(
  get: (key: (typeof ASYNC_TASK_FILTER_KEYS)[number]) => string,
  admin: boolean,
  now: number,
  timeZone?: string,
): AsyncTaskFilters {
  return filtersOf(get, "task_id", admin, defaultAsyncTaskRange(now, timeZone));
}
