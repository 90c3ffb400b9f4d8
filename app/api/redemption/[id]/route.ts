import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { deleteRedemption, getRedemption } from "@/lib/redemptions/manage";
import { REDEMPTION_MSG } from "@/lib/redemptions/schemas";
import { idParam } from "@/lib/db/paging";
import { INT_COLUMN_MAX } from "@/lib/db/num";

export const GET = route({
  auth: "admin",
  handler: ({ params }) => getRedemption(idParam(params.id, REDEMPTION_MSG.notFound, INT_COLUMN_MAX)),
});

export const DELETE = route({
  auth: "admin",
  handler: ({ params, caller, req }) => deleteRedemption(idParam(params.id, REDEMPTION_MSG.notFound, INT_COLUMN_MAX), auditBy(caller, req)),
});
