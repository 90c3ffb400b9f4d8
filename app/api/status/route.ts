import { route } from "@/lib/api/route";
import { getStatus } from "@/lib/options/status";

export const GET = route({ auth: "public", handler: () => getStatus() });
