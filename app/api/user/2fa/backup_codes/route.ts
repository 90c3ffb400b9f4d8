import { ok, route } from "@/lib/api/route";
import { codeSchema, regenerateBackupCodes, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { requestIp } from "@/lib/net/client-ip";

export const POST = route({
  auth: "user",
  body: codeSchema,
  handler: async ({ caller, body, req }) =>
    ok(await regenerateBackupCodes(caller, body.code, requestIp(req.headers)), TWO_FACTOR_MSG.regenerated),
});
