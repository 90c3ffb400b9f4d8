import { ok, route } from "@/lib/api/route";
import { authenticationResponseSchema } from "@/lib/accounts/passkey-schemas";
import { finishPasskeyVerify, PASSKEY_MSG } from "@/lib/accounts/passkeys";

/** Step-up: the session counts as verified for the next few minutes (lib/auth/step-up.ts). */
export const POST = route({
  auth: "user",
  body: authenticationResponseSchema,
  handler: async ({ caller, body, req }) => {
    await finishPasskeyVerify(req, caller, body);
    return ok(null, PASSKEY_MSG.verified);
  },
});
