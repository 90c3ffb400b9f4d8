// Root only: admins manage channels but do not read upstream keys (new-api returns keys to any admin).
import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";
import { revealChannelKey } from "@/lib/channels/query";

export const POST = route({
  auth: "root",
  handler: ({ params, caller, req }) => revealChannelKey(idParam(params.id, CHANNEL_MSG.notFound), auditBy(caller, req)),
});
