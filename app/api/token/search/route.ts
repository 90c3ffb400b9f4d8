import { route } from "@/lib/api/route";
import { tokenSearchQuery } from "@/lib/tokens/schemas";
import { searchTokens } from "@/lib/tokens/manage";

export const GET = route({ auth: "user", query: tokenSearchQuery, handler: ({ caller, query }) => searchTokens(caller, query) });
