import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { sessionSetCookie } from "@/lib/auth/cookie";
import { ApiError } from "@/lib/api/errors";
import { verifyTurnstile } from "@/lib/auth/turnstile";
import { requestIp } from "@/lib/net/client-ip";
import { loginWithPassword } from "@/lib/users/auth";
import { loginSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "public",
  body: loginSchema,
  handler: async ({ body, req }) => {
    const ip = requestIp(req.headers);
    if (!(await verifyTurnstile(new URL(req.url).searchParams.get("turnstile"), ip))) {
      throw new ApiError("Turnstile 校验失败，请刷新重试！", 400);
    }
    const { auth_version, ...user } = await loginWithPassword(body, ip);
    const cookie = await sessionSetCookie(req, { id: user.id, username: user.username, role: user.role, ver: auth_version });
    return envelope(user, "", { headers: { "set-cookie": cookie } });
  },
});
