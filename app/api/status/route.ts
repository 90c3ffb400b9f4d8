import { route } from "@/lib/api/route";
import { getStatus } from "@/lib/status/site-status";

export const GET = route({ auth: "public", handler: () => getStatus() });
