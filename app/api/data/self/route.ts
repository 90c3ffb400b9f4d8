import { route } from "@/lib/api/route";
import { dataQuerySchema, listUserQuotaData } from "@/lib/data/query";

/** The caller's own usage buckets. */
export const GET = route({ auth: "user", query: dataQuerySchema, handler: ({ caller, query }) => listUserQuotaData(caller.id, query) });
