import { route } from "@/lib/api/route";
import { listChannelModels } from "@/lib/channels/query";

export const GET = route({ auth: "admin", handler: () => listChannelModels() });
