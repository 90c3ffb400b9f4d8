import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { deleteDisabledChannels } from "@/lib/channels/manage";

export const DELETE = route({ auth: "admin", handler: ({ caller, req }) => deleteDisabledChannels(auditBy(caller, req)) });
