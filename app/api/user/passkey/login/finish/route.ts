import { route } from "@/lib/api/route";
import { authenticationResponseSchema } from "@/lib/accounts/passkey-schemas";
import { finishPasskeyLogin } from "@/lib/accounts/passkeys";
import { completeSignIn, signedInResponse } from "@/lib/auth/sign-in";

/** Answers as POST /api/user/login does: the user and the session cookie (a passkey skips the TOTP code). */
export const POST = route({
  auth: "public",
  body: authenticationResponseSchema,
  handler: async ({ body, req }) => {
    const { user, claims } = await finishPasskeyLogin(req, body);
    return signedInResponse(user, await completeSignIn(req, claims, "passkey"));
  },
});
