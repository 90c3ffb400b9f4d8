import { route, ok } from "@/lib/api/route";
import { verifyTurnstile } from "@/lib/auth/turnstile";
import { requestIp } from "@/lib/net/client-ip";
import { registerUser } from "@/lib/users/auth";
import { registerSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "public",
  body: registerSchema,
  handler: async ({ body, req }) => {
    const ip = requestIp(req.headers);
    const turnstileOk = await verifyTurnstile(new URL(req.url).searchParams.get("turnstile"), ip);
    await registerUser(body, ip, turnstileOk);
    return ok(null, "注册成功");
  },
});
