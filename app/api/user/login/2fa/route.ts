import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { finishTwoFactorSignIn } from "@/lib/accounts/two-factor-sign-in";
import { codeSchema } from "@/lib/accounts/two-factor";

export const POST = route({
  auth: "public",
  body: codeSchema,
  handler: async ({ body, req }) => {
    const { user, setCookies } = await finishTwoFactorSignIn(req, body.code);
    const res = envelope(user, "");
    for (const cookie of setCookies) res.headers.append("set-cookie", cookie);
    return res;
  },
});
