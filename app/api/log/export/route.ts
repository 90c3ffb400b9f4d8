import { route } from "@/lib/api/route";
import { exportLogs, logExportQuery } from "@/lib/logs/export";

/** The filtered log of every user as CSV (admin), streamed. */
export const GET = route({ auth: "admin", query: logExportQuery, handler: ({ query }) => exportLogs(query) });
