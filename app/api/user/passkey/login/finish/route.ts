import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { authenticationResponseSchema } from "@/lib/accounts/passkey-schemas";
import { finishPasskeyLogin } from "@/lib/accounts/passkeys";
import { completeSignIn, SIGN_IN_MSG } from "@/lib/auth/sign-in";

/** Answers as POST /api/user/login does: the user and the session cookie. */
export const POST = route({
  auth: "public",
  body: authenticationResponseSchema,
  handler: async ({ body, req }) => {
    const { user, claims } = await finishPasskeyLogin(req, body);
    const result = await completeSignIn(req, claims, "passkey");
    // A passkey skips the TOTP code (lib/auth/sign-in.ts); the branch keeps the login's contract whole.
    if (result.state === "require_2fa") {
      return envelope({ require_2fa: true }, SIGN_IN_MSG.needCode, { headers: { "set-cookie": result.setCookie } });
    }
    return envelope(user, "", { headers: { "set-cookie": result.setCookie } });
  },
});
