import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { passkeyBeginSchema } from "@/lib/accounts/passkey-schemas";
import { beginPasskeyRegistration } from "@/lib/accounts/passkeys";

export const POST = route({
  auth: "user",
  body: passkeyBeginSchema,
  handler: async ({ caller, body, req }) => {
    const { options, setCookie } = await beginPasskeyRegistration(req, caller, body.name);
    return envelope({ options }, "", setCookie ? { headers: { "set-cookie": setCookie } } : undefined);
  },
});
