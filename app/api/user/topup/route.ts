import { route } from "@/lib/api/route";
import { listOrders, orderQuerySchema } from "@/lib/payments/order-list";
import { redeemCode } from "@/lib/redemptions/redeem";
import { topupSchema } from "@/lib/redemptions/schemas";

/** Redeem a code (spec §7 Wallet). */
export const POST = route({ auth: "user", body: topupSchema, handler: ({ caller, body }) => redeemCode(caller, body.key) });

/** Every user's top-up orders (admin), newest first, filtered by user, status, method and time. */
export const GET = route({ auth: "admin", query: orderQuerySchema, handler: ({ query }) => listOrders(query) });
