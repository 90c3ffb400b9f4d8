// Reading the data dashboard's usage buckets (`quota_data`, written by the ledger: see
// lib/data/buckets.ts). GET /api/data/ (admin: everyone's, or one username's) and
// GET /api/data/self/ (the caller's) answer the rows in a time range, oldest first, as new-api
// does; the /detail page renders from the same functions and sums them for its charts.
import { z } from "zod";
import { badRequest } from "@/lib/errors";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { INT_COLUMN_MAX, num } from "@/lib/db/num";

/** The widest range one request may ask for, in seconds (31 days: a month, with the default's hour ahead). */
export const MAX_DATA_SPAN = 31 * 86400;

export const DATA_MSG = {
  timestamp: "start_timestamp 和 end_timestamp 必须是 Unix 时间戳（秒）",
  order: "开始时间不能晚于结束时间",
  span: "时间跨度不能超过 1 个月",
} as const;

const timestamp = z.preprocess(
  (v) => (typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : v),
  z.number({ error: DATA_MSG.timestamp }).int(DATA_MSG.timestamp).min(0, DATA_MSG.timestamp).max(INT_COLUMN_MAX, DATA_MSG.timestamp),
);

export const dataQuerySchema = z
  .object({
    start_timestamp: timestamp,
    end_timestamp: timestamp,
    /** Admin only: one user's rows. */
    username: z.string().trim().optional().default(""),
  })
  .superRefine((q, ctx) => {
    if (q.start_timestamp > q.end_timestamp) ctx.addIssue({ code: "custom", message: DATA_MSG.order });
    else if (q.end_timestamp - q.start_timestamp > MAX_DATA_SPAN) ctx.addIssue({ code: "custom", message: DATA_MSG.span });
  });

export type DataQuery = z.output<typeof dataQuerySchema>;

/** The query of a page URL, checked like the API's; the message of the first problem is thrown. */
export function parseDataQuery(input: Record<string, unknown>): DataQuery {
  const parsed = dataQuerySchema.safeParse(input);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? DATA_MSG.timestamp);
  return parsed.data;
}

const DATA_SELECT = {
  id: true,
  user_id: true,
  username: true,
  model_name: true,
  created_at: true,
  token_used: true,
  count: true,
  quota: true,
} as const;

type Row = Prisma.QuotaDataGetPayload<{ select: typeof DATA_SELECT }>;

export type QuotaDataItem = Omit<Row, "token_used" | "quota"> & { token_used: number; quota: number };

async function rowsOf(where: Prisma.QuotaDataWhereInput, q: DataQuery): Promise<QuotaDataItem[]> {
  const db = await getDb();
  const rows = await db.quotaData.findMany({
    where: { ...where, created_at: { gte: q.start_timestamp, lte: q.end_timestamp } },
    select: DATA_SELECT,
    orderBy: [{ created_at: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({ ...r, token_used: num(r.token_used), quota: num(r.quota) }));
}

/** GET /api/data/ (admin): every user's buckets, or one username's. */
export const listQuotaData = (q: DataQuery) => rowsOf(q.username ? { username: q.username } : {}, q);

/** GET /api/data/self/: the caller's buckets (a username filter is ignored). */
export const listUserQuotaData = (userId: number, q: DataQuery) => rowsOf({ user_id: userId }, q);
