import { route } from "@/lib/api/route";
import { completeSignIn, signedInResponse } from "@/lib/auth/sign-in";
import { requestIp } from "@/lib/net/client-ip";
import { loginWithPassword } from "@/lib/users/auth";
import { loginSchema } from "@/lib/users/schemas";

// With two-factor on, the answer is `{require_2fa: true}` and the code comes next (POST
// /api/user/login/2fa), as new-api answers it.
export const POST = route({
  auth: "public",
  body: loginSchema,
  handler: async ({ body, req }) => {
    const turnstile = new URL(req.url).searchParams.get("turnstile");
    const { auth_version, ...user } = await loginWithPassword(body, requestIp(req.headers), turnstile);
    return signedInResponse(user, await completeSignIn(req, { ...user, auth_version }, "password"));
  },
});
