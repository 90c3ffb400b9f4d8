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

/** Sums of the buckets of everyone in the range, per (model or user) and bucket, summed by the database. */
async function sumsOf(q: DataQuery, by: "model" | "user"): Promise<QuotaDataItem[]> {
  const db = await getDb();
  const where = { created_at: { gte: q.start_timestamp, lte: q.end_timestamp } };
  const _sum = { count: true, quota: true, token_used: true } as const;
  if (by === "model") {
    const groups = await db.quotaData.groupBy({
      by: ["model_name", "created_at"],
      where,
      _sum,
      orderBy: [{ created_at: "asc" }, { model_name: "asc" }],
    });
    return groups.map((g) => ({
      id: 0,
      user_id: 0,
      username: "",
      model_name: g.model_name,
      created_at: g.created_at,
      token_used: num(g._sum.token_used ?? 0),
      count: g._sum.count ?? 0,
      quota: num(g._sum.quota ?? 0),
    }));
  }
  const groups = await db.quotaData.groupBy({
    by: ["user_id", "username", "created_at"],
    where,
    _sum,
    orderBy: [{ created_at: "asc" }, { user_id: "asc" }],
  });
  return groups.map((g) => ({
    id: 0,
    user_id: g.user_id,
    username: g.username,
    model_name: "",
    created_at: g.created_at,
    token_used: num(g._sum.token_used ?? 0),
    count: g._sum.count ?? 0,
    quota: num(g._sum.quota ?? 0),
  }));
}

/**
 * GET /api/data/ (admin): one username's buckets; for everyone, as new-api's GetAllQuotaDates, the
 * sums per model and bucket (`id`, `user_id` 0 and `username` empty), summed by the database, so
 * the answer grows with models × buckets, not with users. The console's "by user" view asks for
 * the sums per user and bucket instead (`model_name` empty).
 */
export const listQuotaData = (q: DataQuery, by: "model" | "user" = "model") =>
  q.username ? rowsOf({ username: q.username }, q) : sumsOf(q, by);

/** GET /api/data/self/: the caller's buckets (a username filter is ignored). */
export const listUserQuotaData = (userId: number, q: DataQuery) => rowsOf({ user_id: userId }, q);
