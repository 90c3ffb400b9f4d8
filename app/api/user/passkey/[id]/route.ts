import { ok, route } from "@/lib/api/route";
import { deletePasskey, PASSKEY_MSG } from "@/lib/accounts/passkeys";
import { idParam } from "@/lib/db/paging";

export const DELETE = route({
  auth: "user",
  handler: async ({ caller, params }) => {
    await deletePasskey(caller.id, idParam(params.id, PASSKEY_MSG.notFound));
    return ok(null, PASSKEY_MSG.deleted);
  },
});
