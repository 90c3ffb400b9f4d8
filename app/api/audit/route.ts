import { route } from "@/lib/api/route";
import { auditQuerySchema, listAuditLogs } from "@/lib/audit/read";

/** The audit trail (root): a page of rows, newest first, filtered by actor, action, target and time. */
export const GET = route({ auth: "root", query: auditQuerySchema, handler: ({ query }) => listAuditLogs(query) });
