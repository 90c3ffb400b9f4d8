import { ok, route } from "@/lib/api/route";
import { transferAffQuota } from "@/lib/users/aff";
import { AFF_MSG } from "@/lib/users/self-form";
import { affTransferSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "user",
  body: affTransferSchema,
  handler: async ({ caller, body }) => ok(await transferAffQuota(caller.id, body.quota), AFF_MSG.transferred),
});
