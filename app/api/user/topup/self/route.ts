import { route } from "@/lib/api/route";
import { listOwnOrders, ownOrderQuerySchema } from "@/lib/payments/order-list";

/** The caller's own top-up orders, newest first (the wallet's 充值记录). */
export const GET = route({ auth: "user", query: ownOrderQuerySchema, handler: ({ caller, query }) => listOwnOrders(caller.id, query) });
