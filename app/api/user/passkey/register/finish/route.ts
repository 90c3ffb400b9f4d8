import { ok, route } from "@/lib/api/route";
import { registrationResponseSchema } from "@/lib/accounts/passkey-schemas";
import { finishPasskeyRegistration, PASSKEY_MSG } from "@/lib/accounts/passkeys";

/** The body is the credential JSON the browser made (as new-api takes it). */
export const POST = route({
  auth: "user",
  body: registrationResponseSchema,
  handler: async ({ caller, body, req }) => ok(await finishPasskeyRegistration(req, caller.id, body), PASSKEY_MSG.registered),
});
