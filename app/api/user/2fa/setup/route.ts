import { ok, route } from "@/lib/api/route";
import { startTwoFactorSetup, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";

export const POST = route({
  auth: "user",
  handler: async ({ caller }) => ok(await startTwoFactorSetup(caller), TWO_FACTOR_MSG.setupStarted),
});
