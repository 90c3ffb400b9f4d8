import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { beginPasskeyVerify } from "@/lib/accounts/passkeys";

export const POST = route({
  auth: "user",
  handler: async ({ caller, req }) => {
    const { options, setCookie } = await beginPasskeyVerify(req, caller);
    return envelope({ options }, "", setCookie ? { headers: { "set-cookie": setCookie } } : undefined);
  },
});
