import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { beginPasskeyLogin } from "@/lib/accounts/passkeys";

/** Public: a sign-in names no account (the passkey is discoverable). */
export const POST = route({
  auth: "public",
  handler: async ({ req }) => {
    const { options, setCookie } = await beginPasskeyLogin(req);
    return envelope({ options }, "", setCookie ? { headers: { "set-cookie": setCookie } } : undefined);
  },
});
