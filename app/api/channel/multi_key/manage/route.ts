// new-api's multi-key management: one endpoint, the action in the body (lib/channels/multi-keys.ts).
import { ok, route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { multiKeyManageSchema } from "@/lib/channels/schemas";
import { manageMultiKeys } from "@/lib/channels/multi-keys";

export const POST = route({
  auth: "admin",
  body: multiKeyManageSchema,
  handler: async ({ body, caller, req }) => {
    const { data, message } = await manageMultiKeys(body, auditBy(caller, req));
    return ok(data, message);
  },
});
