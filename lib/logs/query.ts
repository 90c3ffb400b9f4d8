// Reading the usage log: the all-users list and stats (admin), the caller's own (any user), and the
// root's cleanup. Every filter is an equality or a range on an indexed column (schema.prisma),
// rows come newest first, and count and page run in parallel.
import { z } from "zod";
import { pageQuery, queryNumber } from "@/lib/api/envelope";
import { type AuditBy, writeAudit } from "@/lib/audit/write";
import { type Page, pagedFind } from "@/lib/db/paging";
import { getLogDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { INT_COLUMN_MAX, num, nowSeconds } from "@/lib/db/num";
import { LOG_TYPE } from "@/lib/logs/write";
import { hideSecrets, maskSensitiveText } from "@/lib/net/mask";
import { ApiError } from "@/lib/errors";
import { processSingleton } from "@/lib/singleton";

/** A numeric filter; empty or malformed means "not filtered" (0); one no Int column holds is refused. */
const numberFilter = queryNumber.transform((v, ctx) => {
  if (v === undefined || !Number.isInteger(v)) return 0;
  if (Math.abs(v) > INT_COLUMN_MAX) {
    ctx.addIssue({ code: "custom", message: "超出范围" });
    return z.NEVER;
  }
  return v;
});
const textFilter = z.string().trim().optional().default("");

export const logQuerySchema = z.object({
  ...pageQuery,
  /** 0 = all types. */
  type: numberFilter,
  /** Admin only. */
  username: textFilter,
  token_name: textFilter,
  model_name: textFilter,
  start_timestamp: numberFilter,
  end_timestamp: numberFilter,
  /** Admin only: the channel id. */
  channel: numberFilter,
});

export const logCleanupQuery = z.object({
  target_timestamp: z.coerce
    .number({ error: "请选择清理日志的截止时间" })
    .int()
    .positive("请选择清理日志的截止时间")
    .max(INT_COLUMN_MAX, "清理日志的截止时间超出范围"),
});

export type LogQuery = z.output<typeof logQuerySchema>;

/** Whose rows: everyone's (admin, with the username and channel filters) or one user's. */
type Scope = { kind: "all" } | { kind: "user"; userId: number };

const LOG_SELECT = {
  id: true,
  created_at: true,
  type: true,
  channel_id: true,
  username: true,
  user_id: true,
  token_name: true,
  model_name: true,
  use_time: true,
  is_stream: true,
  prompt_tokens: true,
  completion_tokens: true,
  quota: true,
  content: true,
  other: true,
} as const;

type LogRow = Prisma.LogGetPayload<{ select: typeof LOG_SELECT }>;

/** An error row's admin_info.error_message with secrets masked (rows written before the relay masked them). */
function withErrorMessageMasked(other: string): string {
  try {
    const parsed: unknown = JSON.parse(other);
    const info = (parsed as { admin_info?: { error_message?: unknown } } | null)?.admin_info;
    if (!info || typeof info.error_message !== "string") return other;
    const masked = hideSecrets(info.error_message);
    if (masked === info.error_message) return other;
    info.error_message = masked;
    return JSON.stringify(parsed);
  } catch {
    return other;
  }
}

function toAdminLog(row: LogRow) {
  const { channel_id, quota, ...rest } = row;
  if (row.type === LOG_TYPE.error) {
    // Error rows quote upstream text, which may carry tokens and keys (of any vendor) that no admin should read.
    rest.content = hideSecrets(row.content);
    rest.other = withErrorMessageMasked(row.other);
  }
  return { ...rest, channel: channel_id, quota: num(quota) };
}

export type AdminLogItem = ReturnType<typeof toAdminLog>;
export type SelfLogItem = Omit<AdminLogItem, "id" | "channel">;

/** `other` without admin_info (which names the channels that were tried). */
function withoutAdminInfo(other: string): string {
  if (!other) return "";
  try {
    const parsed: unknown = JSON.parse(other);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return "";
    const { admin_info: _hidden, ...rest } = parsed as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    // Not JSON: nothing can be told apart, so nothing is shown.
    return "";
  }
}

function toSelfLog(row: LogRow): SelfLogItem {
  const { id: _id, channel: _channel, ...rest } = toAdminLog(row);
  // The relay writes error rows masked; rows from before it did are masked here.
  const content = row.type === LOG_TYPE.error ? maskSensitiveText(row.content) : row.content;
  return { ...rest, content, other: withoutAdminInfo(row.other) };
}

/** Filters shared by the list and the stats, except type and time. */
function ownerWhere(scope: Scope, q: LogQuery): Prisma.LogWhereInput {
  const where: Prisma.LogWhereInput = {};
  if (scope.kind === "user") where.user_id = scope.userId;
  else {
    if (q.username) where.username = q.username;
    if (q.channel) where.channel_id = q.channel;
  }
  if (q.token_name) where.token_name = q.token_name;
  if (q.model_name) where.model_name = q.model_name;
  return where;
}

function timeRange(q: LogQuery): Prisma.IntFilter | undefined {
  if (!q.start_timestamp && !q.end_timestamp) return undefined;
  return { ...(q.start_timestamp ? { gte: q.start_timestamp } : {}), ...(q.end_timestamp ? { lte: q.end_timestamp } : {}) };
}

/**
 * Newest first by time, then by id: every filter's index is (filter column, created_at, type,
 * quota), so the page is read off the index in time order (ties on created_at sorted on the way)
 * instead of sorting every matching row, and the count and the stat's sums read the index alone.
 */
const NEWEST_FIRST: Prisma.LogOrderByWithRelationInput[] = [{ created_at: "desc" }, { id: "desc" }];

async function pageOf<T>(scope: Scope, q: LogQuery, view: (row: LogRow) => T): Promise<Page<T>> {
  const where: Prisma.LogWhereInput = { ...ownerWhere(scope, q), created_at: timeRange(q), ...(q.type ? { type: q.type } : {}) };
  const db = await getLogDb();
  return pagedFind(q, {
    count: () => db.log.count({ where }),
    rows: (window) => db.log.findMany({ where, select: LOG_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: (rows) => rows.map(view),
  });
}

/** GET /api/log/ (admin): every user's rows. */
export const listLogs = (q: LogQuery) => pageOf({ kind: "all" }, q, toAdminLog);

/** GET /api/log/self: the caller's rows, without ids, channels or admin_info. */
export const listUserLogs = (userId: number, q: LogQuery) => pageOf({ kind: "user", userId }, q, toSelfLog);

export type LogStat = { quota: number; rpm: number; tpm: number };

/** The window of rpm and tpm. */
const RECENT_SECONDS = 60;

/**
 * quota: the sum over the filter, of consumption rows when no type is chosen (the badge reads
 * "consumed"). rpm / tpm: count and prompt + completion tokens of consumption rows of the last
 * 60 s matching the same user, token, model (and admin) filters, whatever the time range.
 */
async function statOf(scope: Scope, q: LogQuery): Promise<LogStat> {
  const owner = ownerWhere(scope, q);
  const db = await getLogDb();
  const [sum, recent] = await Promise.all([
    db.log.aggregate({ where: { ...owner, type: q.type || LOG_TYPE.consume, created_at: timeRange(q) }, _sum: { quota: true } }),
    db.log.aggregate({
      where: { ...owner, type: LOG_TYPE.consume, created_at: { gte: nowSeconds() - RECENT_SECONDS } },
      _count: { _all: true },
      _sum: { prompt_tokens: true, completion_tokens: true },
    }),
  ]);
  return {
    quota: num(sum._sum.quota),
    rpm: recent._count._all,
    tpm: (recent._sum.prompt_tokens ?? 0) + (recent._sum.completion_tokens ?? 0),
  };
}

export const getLogStat = (q: LogQuery) => statOf({ kind: "all" }, q);
export const getUserLogStat = (userId: number, q: LogQuery) => statOf({ kind: "user", userId }, q);

/** DELETE /api/log/ (root): deleteLogsBefore, audited with the cut-off and how many rows went. */
export async function cleanupLogs(targetTimestamp: number, by: AuditBy, o: CleanupOptions = {}): Promise<number> {
  const count = await runCleanup(targetTimestamp, o);
  await writeAudit({ ...by, action: "log.cleanup", target_type: "log", detail: { before: targetTimestamp, count } });
  return count;
}

/** Rows deleted per statement, so a large cleanup never holds the write lock for long. */
const CLEANUP_BATCH = 5000;
/** Pause between statements: the relay's log and ledger writes take the lock in between. */
const CLEANUP_PAUSE_MS = 5;

export type CleanupOptions = {
  batchSize?: number;
  pauseMs?: number;
  /** Only rows of this log type (the retention job's); all types when absent. */
  type?: number;
  /** Called after each statement with the rows deleted so far. */
  onBatch?: (deleted: number) => void;
};

/**
 * Deletes rows created before `targetTimestamp` (unix s), oldest first, at most `batchSize` rows
 * per statement with a pause after each, so even a table of millions never locks out the relay's
 * writes (SQLite has one writer); returns how many rows went. Each statement is bounded by an id
 * range and counts what it really deleted, so two cleanups racing over the same rows add up to
 * the rows that existed.
 */
export async function deleteLogsBefore(targetTimestamp: number, o: CleanupOptions = {}): Promise<number> {
  const batchSize = o.batchSize ?? CLEANUP_BATCH;
  const pauseMs = o.pauseMs ?? CLEANUP_PAUSE_MS;
  const where: Prisma.LogWhereInput = { created_at: { lt: targetTimestamp }, ...(o.type ? { type: o.type } : {}) };
  const db = await getLogDb();
  let deleted = 0;
  for (;;) {
    // The batch's last id bounds the statement; `created_at` (or `type, created_at`) uses its index to find it.
    const last = await db.log.findFirst({ where, select: { id: true }, orderBy: { id: "asc" }, skip: batchSize - 1 });
    const { count } = await db.log.deleteMany({ where: { ...where, ...(last ? { id: { lte: last.id } } : {}) } });
    deleted += count;
    o.onBatch?.(deleted);
    if (!last) return deleted;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** The manual cleanup this console process is running, for GET /api/log/cleanup. */
export type CleanupProgress = { running: boolean; before: number; total: number; deleted: number };

const cleanupState = processSingleton<{ current: CleanupProgress }>("logCleanupProgress", () => ({
  current: { running: false, before: 0, total: 0, deleted: 0 },
}));

export const CLEANUP_MSG = { running: "日志清理正在进行中，请稍候" } as const;

/** GET /api/log/cleanup (root): the running (or last) cleanup of this instance. */
export function getCleanupProgress(): CleanupProgress {
  return { ...cleanupState.current };
}

/** One cleanup at a time per instance, its progress counted batch by batch. */
async function runCleanup(targetTimestamp: number, o: CleanupOptions): Promise<number> {
  if (cleanupState.current.running) throw new ApiError(CLEANUP_MSG.running, 409);
  const progress: CleanupProgress = { running: true, before: targetTimestamp, total: 0, deleted: 0 };
  cleanupState.current = progress;
  try {
    const db = await getLogDb();
    progress.total = await db.log.count({ where: { created_at: { lt: targetTimestamp } } });
    return await deleteLogsBefore(targetTimestamp, {
      ...o,
      onBatch: (deleted) => {
        progress.deleted = deleted;
        // Rows written before the cut-off after the count (a late ledger batch) still count.
        progress.total = Math.max(progress.total, deleted);
      },
    });
  } finally {
    progress.running = false;
  }
}

/** Where a keyset read stopped: the last row's time and id (rows come newest first). */
type LogCursor = { created_at: number; id: number };

/** Rows read per statement by the CSV export. */
export const EXPORT_BATCH = 1000;

/**
 * Every row of the filter, newest first as the table lists them, `size` at a time: each batch
 * starts after the last row of the one before (created_at, id), so no offset is scanned and memory
 * holds one batch whatever the total.
 */
async function* batchesOf<T>(scope: Scope, q: LogQuery, view: (row: LogRow) => T, size: number): AsyncGenerator<T[]> {
  const base: Prisma.LogWhereInput = { ...ownerWhere(scope, q), created_at: timeRange(q), ...(q.type ? { type: q.type } : {}) };
  const db = await getLogDb();
  let after: LogCursor | null = null;
  for (;;) {
    const where: Prisma.LogWhereInput = after
      ? {
          AND: [base, { OR: [{ created_at: { lt: after.created_at } }, { created_at: after.created_at, id: { lt: after.id } }] }],
        }
      : base;
    const rows = await db.log.findMany({ where, select: LOG_SELECT, orderBy: NEWEST_FIRST, take: size });
    if (rows.length > 0) yield rows.map(view);
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = { created_at: last.created_at, id: last.id };
  }
}

/** GET /api/log/export (admin): every user's rows of the filter, in batches. */
export const adminLogBatches = (q: LogQuery, size = EXPORT_BATCH) => batchesOf({ kind: "all" }, q, toAdminLog, size);

/** GET /api/log/self/export: the caller's rows of the filter, as /api/log/self shows them. */
export const userLogBatches = (userId: number, q: LogQuery, size = EXPORT_BATCH) => batchesOf({ kind: "user", userId }, q, toSelfLog, size);
