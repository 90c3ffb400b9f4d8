import { route } from "@/lib/api/route";
import { deleteDisabledChannels } from "@/lib/channels/manage";

export const DELETE = route({ auth: "admin", handler: () => deleteDisabledChannels() });
