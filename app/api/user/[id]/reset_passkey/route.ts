import { ok, route } from "@/lib/api/route";
import { PASSKEY_MSG, resetUserPasskeys } from "@/lib/accounts/passkeys";
import { idParam } from "@/lib/db/paging";
import { requestIp } from "@/lib/net/client-ip";
import { USER_MSG } from "@/lib/users/manage-rules";

export const DELETE = route({
  auth: "admin",
  handler: async ({ caller, params, req }) => {
    const removed = await resetUserPasskeys(caller, idParam(params.id, USER_MSG.notFound), requestIp(req.headers));
    return ok({ removed }, PASSKEY_MSG.reset);
  },
});
