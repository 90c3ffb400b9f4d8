import { route } from "@/lib/api/route";
import { getCleanupProgress } from "@/lib/logs/query";

/** The progress of this instance's running (or last) log cleanup (root), for the settings page's bar. */
export const GET = route({ auth: "root", handler: () => getCleanupProgress() });
