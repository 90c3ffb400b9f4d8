// Reading top-up orders: a user's own (GET /api/user/topup/self and the wallet's 充值记录) and
// everyone's with filters (GET /api/user/topup and the /orders page, admin). Newest first by
// create_time then id; every filter is an equality or a range on an indexed column of top_ups
// (user_id, status, payment_method, each with create_time); count and page run in parallel.
import { z } from "zod";
import { filtersFromUrl, pageQuery, queryTime } from "@/lib/api/envelope";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { INT_COLUMN_MAX, num } from "@/lib/db/num";
import { type Page, pagedFind } from "@/lib/db/paging";
import { centsToMoney } from "@/lib/payments/epay";
import { ORDER_STATUS, PAYMENT_METHOD } from "@/lib/payments/orders";
import { type AdminOrderView, ORDER_MSG, type OrderView } from "@/lib/payments/order-view";
import { usernameKey } from "@/lib/users/username";

export type { AdminOrderView, OrderView };

/** `GET /api/user/topup/self`: paging only. */
export const ownOrderQuerySchema = z.object(pageQuery);

/** One of `values`, or "" (not filtered); the query's text is trimmed. */
const choice = <T extends string>(values: readonly [T, ...T[]], message: string) =>
  z
    .string()
    .trim()
    .optional()
    .default("")
    .pipe(z.enum(["", ...values], { error: message }));

/** `GET /api/user/topup` (admin): paging and the filters; an empty filter filters nothing. */
export const orderQuerySchema = z.object({
  ...pageQuery,
  /** A username (any case) or a user id. */
  username: z.string().trim().max(64, "不能超过 64 个字符").optional().default(""),
  status: choice([ORDER_STATUS.pending, ORDER_STATUS.success, ORDER_STATUS.expired], ORDER_MSG.statusInvalid),
  payment_method: choice([PAYMENT_METHOD.zfb, PAYMENT_METHOD.wx, PAYMENT_METHOD.stripe], ORDER_MSG.methodInvalid),
  /** On create_time, Unix seconds, both ends included. */
  start_timestamp: queryTime,
  end_timestamp: queryTime,
});

export type OwnOrderQuery = z.output<typeof ownOrderQuerySchema>;
export type OrderQuery = z.output<typeof orderQuerySchema>;

/** The /orders page's filters, as its URL and its form hold them. */
export type OrderFilters = Omit<OrderQuery, "p" | "page_size">;

export const ORDER_FILTER_KEYS = ["username", "status", "payment_method", "start_timestamp", "end_timestamp"] as const;

/** The filters from the page's URL: a value GET /api/user/topup would refuse is dropped rather than failing the page. */
export function orderFiltersOf(get: (key: (typeof ORDER_FILTER_KEYS)[number]) => string): OrderFilters {
  return filtersFromUrl(
    orderQuerySchema.shape,
    { username: "", status: "", payment_method: "", start_timestamp: 0, end_timestamp: 0 },
    get,
  );
}

const ORDER_SELECT = {
  id: true,
  user_id: true,
  trade_no: true,
  amount: true,
  quota: true,
  money_cents: true,
  currency: true,
  payment_method: true,
  status: true,
  create_time: true,
  complete_time: true,
  gateway_ref: true,
  completed_by: true,
} as const;

type OrderRow = Prisma.TopUpGetPayload<{ select: typeof ORDER_SELECT }>;

function toOrderView(row: OrderRow): OrderView {
  return {
    id: row.id,
    trade_no: row.trade_no,
    amount: row.amount,
    quota: num(row.quota),
    money: centsToMoney(row.money_cents),
    currency: row.currency.toUpperCase(),
    payment_method: row.payment_method,
    status: row.status,
    create_time: row.create_time,
    complete_time: row.complete_time,
  };
}

const NEWEST_FIRST: Prisma.TopUpOrderByWithRelationInput[] = [{ create_time: "desc" }, { id: "desc" }];

/** The caller's own orders, newest first. */
export async function listOwnOrders(userId: number, q: OwnOrderQuery): Promise<Page<OrderView>> {
  const where: Prisma.TopUpWhereInput = { user_id: userId };
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.topUp.count({ where }),
    rows: (window) => db.topUp.findMany({ where, select: ORDER_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: (rows) => rows.map(toOrderView),
  });
}

/** The user filter: the account named so (in any case or form), or the id typed. No such user matches nothing. */
async function userWhere(who: string): Promise<Prisma.TopUpWhereInput> {
  const db = await getDb();
  const ids: number[] = [];
  if (/^\d{1,10}$/.test(who) && Number(who) <= INT_COLUMN_MAX) ids.push(Number(who));
  const named = await db.user.findMany({ where: { OR: [{ username: who }, { username_key: usernameKey(who) }] }, select: { id: true } });
  ids.push(...named.map((u) => u.id));
  return { user_id: { in: ids } };
}

/** Who the page's orders belong to and who marked them paid: one query for the page. */
async function withUsers(rows: OrderRow[]): Promise<AdminOrderView[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.completed_by ? [r.user_id, r.completed_by] : [r.user_id])))];
  const db = await getDb();
  const users = ids.length
    ? await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true, role: true, deleted_at: true } })
    : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((row) => {
    const owner = byId.get(row.user_id);
    return {
      ...toOrderView(row),
      user_id: row.user_id,
      username: owner?.username ?? "",
      user_role: owner?.role ?? -1,
      user_gone: !owner || owner.deleted_at !== null,
      gateway_ref: row.gateway_ref,
      completed_by: row.completed_by,
      completed_by_name: row.completed_by ? (byId.get(row.completed_by)?.username ?? "") : "",
    };
  });
}

/** Every user's orders (admin), newest first, filtered by user, status, method and creation time. */
export async function listOrders(q: OrderQuery): Promise<Page<AdminOrderView>> {
  const and: Prisma.TopUpWhereInput[] = [];
  if (q.username) and.push(await userWhere(q.username));
  if (q.status) and.push({ status: q.status });
  if (q.payment_method) and.push({ payment_method: q.payment_method });
  if (q.start_timestamp) and.push({ create_time: { gte: q.start_timestamp } });
  if (q.end_timestamp) and.push({ create_time: { lte: q.end_timestamp } });
  const where: Prisma.TopUpWhereInput = { AND: and };
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.topUp.count({ where }),
    rows: (window) => db.topUp.findMany({ where, select: ORDER_SELECT, orderBy: NEWEST_FIRST, ...window }),
    view: withUsers,
  });
}
