// Root only (new-api lets any admin): switching off another account's second factor is a takeover
// aid, so it stays with the role that can already do everything, and it is audited.
import { ok, route } from "@/lib/api/route";
import { resetTwoFactor, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { idParam } from "@/lib/db/paging";
import { requestIp } from "@/lib/net/client-ip";

export const DELETE = route({
  auth: "root",
  handler: async ({ caller, params, req }) => {
    await resetTwoFactor(caller, idParam(params.id, TWO_FACTOR_MSG.userNotFound), requestIp(req.headers));
    return ok(null, TWO_FACTOR_MSG.reset);
  },
});
