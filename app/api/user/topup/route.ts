import { route } from "@/lib/api/route";
import { redeemCode } from "@/lib/redemptions/redeem";
import { topupSchema } from "@/lib/redemptions/schemas";

export const POST = route({ auth: "user", body: topupSchema, handler: ({ caller, body }) => redeemCode(caller, body.key) });
