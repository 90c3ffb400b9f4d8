import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { cleanupLogs, listLogs, logCleanupQuery, logQuerySchema } from "@/lib/logs/query";

export const GET = route({ auth: "admin", query: logQuerySchema, handler: ({ query }) => listLogs(query) });

/** Log cleanup (root): deletes rows created before target_timestamp; answers the count. */
export const DELETE = route({
  auth: "root",
  query: logCleanupQuery,
  handler: ({ query, caller, req }) => cleanupLogs(query.target_timestamp, auditBy(caller, req)),
});
