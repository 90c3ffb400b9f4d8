import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";
import { getChannel } from "@/lib/channels/query";
import { deleteChannel } from "@/lib/channels/manage";

export const GET = route({
  auth: "admin",
  handler: ({ params }) => getChannel(idParam(params.id, CHANNEL_MSG.notFound)),
});

export const DELETE = route({
  auth: "admin",
  handler: ({ params, caller, req }) => deleteChannel(idParam(params.id, CHANNEL_MSG.notFound), auditBy(caller, req)),
});
