import { route } from "@/lib/api/route";
import { searchRedemptions } from "@/lib/redemptions/manage";
import { redemptionSearchQuery } from "@/lib/redemptions/schemas";

export const GET = route({ auth: "admin", query: redemptionSearchQuery, handler: ({ query }) => searchRedemptions(query) });
