import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { channelIdsSchema } from "@/lib/channels/schemas";
import { deleteChannels } from "@/lib/channels/manage";

/** Batch delete. */
export const POST = route({
  auth: "admin",
  body: channelIdsSchema,
  handler: ({ body, caller, req }) => deleteChannels(body.ids, auditBy(caller, req)),
});
