import { route } from "@/lib/api/route";
import { fixChannelAbilities } from "@/lib/channels/manage";

export const POST = route({ auth: "admin", handler: () => fixChannelAbilities() });
