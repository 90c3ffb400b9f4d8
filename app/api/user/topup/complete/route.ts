import { ok, route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { markOrderPaid, markPaidSchema } from "@/lib/payments/mark-paid";
import { ORDER_MSG } from "@/lib/payments/order-view";

/** An admin marks a pending or expired order paid (补单) after checking the gateway: credited once, audited. */
export const POST = route({
  auth: "admin",
  body: markPaidSchema,
  handler: async ({ caller, body, req }) => ok(await markOrderPaid(caller, body.trade_no, auditBy(caller, req)), ORDER_MSG.completed),
});
