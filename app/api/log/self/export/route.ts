import { route } from "@/lib/api/route";
import { exportUserLogs, logExportQuery } from "@/lib/logs/export";

/** The caller's own filtered log as CSV, streamed. */
export const GET = route({ auth: "user", query: logExportQuery, handler: ({ caller, query }) => exportUserLogs(caller.id, query) });
