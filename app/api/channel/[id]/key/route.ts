// Root only: admins manage channels but do not read upstream keys (new-api returns keys to any admin).
// Root proves again who they are first (step-up), and every reveal is on the audit trail.
import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { requireStepUp } from "@/lib/auth/step-up";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";
import { revealChannelKey } from "@/lib/channels/query";

export const POST = route({
  auth: "root",
  handler: ({ params, caller, req }) => {
    requireStepUp(caller);
    return revealChannelKey(idParam(params.id, CHANNEL_MSG.notFound), auditBy(caller, req));
  },
});
