import { route } from "@/lib/api/route";
import { getUserLogStat, logQuerySchema } from "@/lib/logs/query";

export const GET = route({ auth: "user", query: logQuerySchema, handler: ({ caller, query }) => getUserLogStat(caller.id, query) });
