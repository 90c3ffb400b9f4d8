import { ok, route } from "@/lib/api/route";
import { BINDING_MSG, bindingParam, unbindSelf } from "@/lib/accounts/bindings";

/** Unbinds one of the caller's own bindings; refused when it is their last way to sign in. */
export const DELETE = route({
  auth: "user",
  handler: async ({ caller, params }) => {
    await unbindSelf(caller.id, bindingParam(params.provider));
    return ok(null, BINDING_MSG.unbound);
  },
});
