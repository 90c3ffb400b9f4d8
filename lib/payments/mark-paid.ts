// An admin marks an order paid (补单, POST /api/user/topup/complete) after checking the gateway's
// own records: the order is credited through creditOrder, the one credit path, so it is credited
// exactly once however many notifications and admins race for it; then the audit trail records
// who did it, from where, and what was credited.
import { z } from "zod";
import { type AuditBy, writeAudit } from "@/lib/audit/write";
import { getDb } from "@/lib/db";
import { num } from "@/lib/db/num";
import { badRequest, forbidden, notFound } from "@/lib/errors";
import { centsToMoney } from "@/lib/payments/epay";
import { creditOrder, findOrder, logPaymentRefusal, ORDER_STATUS } from "@/lib/payments/orders";
import { markPaidRefusal, ORDER_MSG } from "@/lib/payments/order-view";

/** `POST /api/user/topup/complete`: the order number (trade_no, as the order lists show it). */
export const markPaidSchema = z.object({
  trade_no: z.string({ error: ORDER_MSG.notFound }).trim().min(1, ORDER_MSG.notFound).max(128, ORDER_MSG.notFound),
});

/** What a mark-paid answers: the order and the quota it credited. */
export type MarkedPaid = { trade_no: string; user_id: number; quota: number };

/**
 * Credits order `tradeNo` on `actor`'s word. Refused, with nothing moved: an unknown order, one
 * already paid, one whose user is gone, one of a user the actor does not outrank (markPaidRefusal).
 */
export async function markOrderPaid(
  actor: { id: number; username: string; role: number },
  tradeNo: string,
  by: AuditBy,
): Promise<MarkedPaid> {
  const order = await findOrder(tradeNo);
  if (!order) throw notFound(ORDER_MSG.notFound);
  if (order.status === ORDER_STATUS.success) throw badRequest(ORDER_MSG.alreadyPaid);
  const db = await getDb();
  const owner = await db.user.findFirst({
    where: { id: order.user_id, deleted_at: null },
    select: { id: true, role: true, username: true },
  });
  if (!owner) throw notFound(ORDER_MSG.userGone);
  const refusal = markPaidRefusal(actor, owner);
  if (refusal) throw forbidden(refusal);

  const result = await creditOrder(tradeNo, { admin: { id: actor.id, username: actor.username } });
  switch (result.outcome) {
    case "credited":
      break;
    // A notification (or another admin) credited it between the checks and now.
    case "already":
      throw badRequest(ORDER_MSG.alreadyPaid);
    case "user_gone":
      throw notFound(ORDER_MSG.userGone);
    case "unknown":
      throw notFound(ORDER_MSG.notFound);
    // An admin's word carries no proof to disagree with; kept for the exhaustive switch.
    case "mismatch":
      logPaymentRefusal("admin", result.reason, { trade_no: tradeNo, admin: actor.id });
      throw badRequest(result.reason);
  }
  const paid = result.order;
  await writeAudit({
    ...by,
    action: "topup.complete",
    target_type: "topup",
    target_id: paid.id,
    detail: {
      trade_no: paid.trade_no,
      user_id: paid.user_id,
      username: owner.username,
      quota: num(result.quota),
      money: `${centsToMoney(paid.money_cents)} ${paid.currency.toUpperCase()}`,
      payment_method: paid.payment_method,
    },
  });
  return { trade_no: paid.trade_no, user_id: paid.user_id, quota: num(result.quota) };
}
