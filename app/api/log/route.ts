import { route } from "@/lib/api/route";
import { deleteLogsBefore, listLogs, logCleanupQuery, logQuerySchema } from "@/lib/logs/query";

export const GET = route({ auth: "admin", query: logQuerySchema, handler: ({ query }) => listLogs(query) });

/** Log cleanup (root): deletes rows created before target_timestamp; answers the count. */
export const DELETE = route({ auth: "root", query: logCleanupQuery, handler: ({ query }) => deleteLogsBefore(query.target_timestamp) });
