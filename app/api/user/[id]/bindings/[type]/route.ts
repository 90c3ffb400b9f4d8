import { ok, route } from "@/lib/api/route";
import { idParam } from "@/lib/db/paging";
import { requestIp } from "@/lib/net/client-ip";
import { BINDING_MSG, bindingParam, clearUserBinding } from "@/lib/accounts/bindings";
import { USER_MSG } from "@/lib/users/manage-rules";

/** new-api's admin call: clears one binding of a user the caller outranks (on the audit trail). */
export const DELETE = route({
  auth: "admin",
  handler: async ({ caller, params, req }) => {
    await clearUserBinding(caller, idParam(params.id, USER_MSG.notFound), bindingParam(params.type), requestIp(req.headers));
    return ok(null, BINDING_MSG.cleared);
  },
});
