// Reading the audit trail (root): GET /api/audit/ and the /audit page call listAuditLogs with the
// same query. Filters: the actor (a username or an id), the action, the target, a time range; rows
// newest first, count and page in parallel. Every filter but the target rides an index of
// audit_logs (created_at; actor_id, created_at; action, created_at).
import { z } from "zod";
import { filtersFromUrl, pageQuery, QUERY_MSG, queryTime } from "@/lib/api/envelope";
import { isAuditAction } from "@/lib/audit/actions";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { INT_COLUMN_MAX } from "@/lib/db/num";
import { type Page, pagedFind } from "@/lib/db/paging";

export const AUDIT_MSG = {
  unknownAction: (name: string) => `未知的操作类型：${name}`,
  timeOutOfRange: QUERY_MSG.timeOutOfRange,
} as const;

const text = (max: number) => z.string().trim().max(max, `不能超过 ${max} 个字符`).optional().default("");

export const auditQuerySchema = z.object({
  ...pageQuery,
  /** A username (as written at the time, or the account's current name) or a user id. */
  actor: text(64),
  /** One of AUDIT_ACTIONS. */
  action: text(64).refine((name) => name === "" || isAuditAction(name), { error: (issue) => AUDIT_MSG.unknownAction(String(issue.input)) }),
  /** The target's id (a user or channel id, an option key). */
  target: text(128),
  /** user, option, channel, redemption, log. */
  target_type: text(32),
  start_timestamp: queryTime,
  end_timestamp: queryTime,
});

export type AuditQuery = z.output<typeof auditQuerySchema>;

/** The /audit page's filters, as its URL and its form hold them. */
export type AuditFilters = Pick<AuditQuery, "actor" | "action" | "target_type" | "target" | "start_timestamp" | "end_timestamp">;

export const AUDIT_FILTER_KEYS = ["actor", "action", "target_type", "target", "start_timestamp", "end_timestamp"] as const;

/** The filters from the page's URL: a value GET /api/audit/ would refuse is dropped rather than failing the page. */
export function auditFiltersOf(get: (key: (typeof AUDIT_FILTER_KEYS)[number]) => string): AuditFilters {
  return filtersFromUrl(
    auditQuerySchema.shape,
    { actor: "", action: "", target_type: "", target: "", start_timestamp: 0, end_timestamp: 0 },
    get,
  );
}

const AUDIT_SELECT = {
  id: true,
  created_at: true,
  actor_id: true,
  actor_name: true,
  action: true,
  target_type: true,
  target_id: true,
  ip: true,
  detail: true,
} as const;

type AuditRow = Prisma.AuditLogGetPayload<{ select: typeof AUDIT_SELECT }>;

export type AuditItem = Omit<AuditRow, "detail"> & { detail: Record<string, unknown> };

function toItem(row: AuditRow): AuditItem {
  let detail: Record<string, unknown> = {};
  try {
    const parsed: unknown = row.detail ? JSON.parse(row.detail) : {};
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) detail = parsed as Record<string, unknown>;
  } catch {
    detail = { text: row.detail };
  }
  return { ...row, detail };
}

/** The actor filter: the name the row was written with, or the account id (typed, or the account now named so). */
async function actorWhere(actor: string): Promise<Prisma.AuditLogWhereInput> {
  const or: Prisma.AuditLogWhereInput[] = [{ actor_name: actor }];
  if (/^\d{1,10}$/.test(actor) && Number(actor) <= INT_COLUMN_MAX) or.push({ actor_id: Number(actor) });
  else {
    const db = await getDb();
    const user = await db.user.findFirst({ where: { username: actor }, select: { id: true } });
    if (user) or.push({ actor_id: user.id });
  }
  return { OR: or };
}

const NEWEST_FIRST: Prisma.AuditLogOrderByWithRelationInput[] = [{ created_at: "desc" }, { id: "desc" }];

/** A page of the audit trail, newest first. */
export async function listAuditLogs(q: AuditQuery): Promise<Page<AuditItem>> {
  const and: Prisma.AuditLogWhereInput[] = [];
  if (q.actor) and.push(await actorWhere(q.actor));
  if (q.action) and.push({ action: q.action });
  if (q.target) and.push({ target_id: q.target });
  if (q.target_type) and.push({ target_type: q.target_type });
  if (q.start_timestamp) and.push({ created_at: { gte: q.start_timestamp } });
  if (q.end_timestamp) and.push({ created_at: { lte: q.end_timestamp } });
  const where: Prisma.AuditLogWhereInput = { AND: and };
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.auditLog.count({ where }),
    rows: (window) => db.auditLog.findMany({ where, select: AUDIT_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: (rows) => rows.map(toItem),
  });
}
