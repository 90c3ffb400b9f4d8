import { route } from "@/lib/api/route";
import { listGroups } from "@/lib/options/groups";

export const GET = route({ auth: "admin", handler: () => listGroups() });
