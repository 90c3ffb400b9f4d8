import { route } from "@/lib/api/route";
import { channelIdsSchema } from "@/lib/channels/schemas";
import { deleteChannels } from "@/lib/channels/manage";

/** Batch delete. */
export const POST = route({ auth: "admin", body: channelIdsSchema, handler: ({ body }) => deleteChannels(body.ids) });
