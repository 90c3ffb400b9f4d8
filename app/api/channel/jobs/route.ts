import { route } from "@/lib/api/route";
import { getChannelJobs } from "@/lib/channels/jobs";

/** Progress of the background runs: {test, balance}, each the current or last run's record or null. */
export const GET = route({ auth: "admin", handler: () => getChannelJobs() });
