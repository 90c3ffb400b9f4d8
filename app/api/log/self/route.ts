import { route } from "@/lib/api/route";
import { listUserLogs, logQuerySchema } from "@/lib/logs/query";

export const GET = route({ auth: "user", query: logQuerySchema, handler: ({ caller, query }) => listUserLogs(caller.id, query) });
