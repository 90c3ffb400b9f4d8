import { ok, route } from "@/lib/api/route";
import { codeSchema, enableTwoFactor, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { requestIp } from "@/lib/net/client-ip";

export const POST = route({
  auth: "user",
  body: codeSchema,
  handler: async ({ caller, body, req }) => {
    await enableTwoFactor(caller, body.code, requestIp(req.headers));
    return ok(null, TWO_FACTOR_MSG.enabled);
  },
});
