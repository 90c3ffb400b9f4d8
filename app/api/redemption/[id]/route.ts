import { route } from "@/lib/api/route";
import { deleteRedemption, getRedemption } from "@/lib/redemptions/manage";
import { parseRedemptionId } from "@/lib/redemptions/schemas";

export const GET = route({ auth: "admin", handler: ({ params }) => getRedemption(parseRedemptionId(params.id)) });

export const DELETE = route({ auth: "admin", handler: ({ params }) => deleteRedemption(parseRedemptionId(params.id)) });
