import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { createRedemptions, listRedemptions, setRedemptionStatus, updateRedemption } from "@/lib/redemptions/manage";
import { redemptionCreateSchema, redemptionListQuery, redemptionUpdateQuery, redemptionUpdateSchema } from "@/lib/redemptions/schemas";

export const GET = route({ auth: "admin", query: redemptionListQuery, handler: ({ query }) => listRedemptions(query) });

export const POST = route({
  auth: "admin",
  body: redemptionCreateSchema,
  handler: ({ caller, body, req }) => createRedemptions(caller, body, auditBy(caller, req)),
});

export const PUT = route({
  auth: "admin",
  query: redemptionUpdateQuery,
  body: redemptionUpdateSchema,
  handler: ({ query, body, caller, req }) =>
    query.status_only ? setRedemptionStatus(body.id, body.status, auditBy(caller, req)) : updateRedemption(body, auditBy(caller, req)),
});
