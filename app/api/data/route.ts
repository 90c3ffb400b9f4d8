import { route } from "@/lib/api/route";
import { dataQuerySchema, listQuotaData } from "@/lib/data/query";

/** Usage buckets of every user, or of `username` (admin). */
export const GET = route({ auth: "admin", query: dataQuerySchema, handler: ({ query }) => listQuotaData(query) });
