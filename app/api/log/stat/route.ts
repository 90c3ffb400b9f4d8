import { route } from "@/lib/api/route";
import { getLogStat, logQuerySchema } from "@/lib/logs/query";

export const GET = route({ auth: "admin", query: logQuerySchema, handler: ({ query }) => getLogStat(query) });
