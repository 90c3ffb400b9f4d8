import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { completeSignIn, SIGN_IN_MSG } from "@/lib/auth/sign-in";
import { requestIp } from "@/lib/net/client-ip";
import { loginWithPassword } from "@/lib/users/auth";
import { loginSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "public",
  body: loginSchema,
  handler: async ({ body, req }) => {
    const turnstile = new URL(req.url).searchParams.get("turnstile");
    const { auth_version, ...user } = await loginWithPassword(body, requestIp(req.headers), turnstile);
    const result = await completeSignIn(req, { ...user, auth_version }, "password");
    // With two-factor on, the code comes next (POST /api/user/login/2fa), as new-api answers it.
    if (result.state === "require_2fa") {
      return envelope({ require_2fa: true }, SIGN_IN_MSG.needCode, { headers: { "set-cookie": result.setCookie } });
    }
    return envelope(user, "", { headers: { "set-cookie": result.setCookie } });
  },
});
