import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { sessionSetCookie } from "@/lib/auth/cookie";
import { requestIp } from "@/lib/net/client-ip";
import { loginWithPassword } from "@/lib/users/auth";
import { loginSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "public",
  body: loginSchema,
  handler: async ({ body, req }) => {
    const turnstile = new URL(req.url).searchParams.get("turnstile");
    const { auth_version, ...user } = await loginWithPassword(body, requestIp(req.headers), turnstile);
    const cookie = await sessionSetCookie(req, { id: user.id, username: user.username, role: user.role, ver: auth_version });
    return envelope(user, "", { headers: { "set-cookie": cookie } });
  },
});
