import { route } from "@/lib/api/route";
import { defaultModelsByType } from "@/lib/channels/catalog";

export const GET = route({ auth: "user", handler: () => defaultModelsByType() });
