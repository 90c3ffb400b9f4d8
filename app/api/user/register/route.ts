import { route, ok } from "@/lib/api/route";
import { requestIp } from "@/lib/net/client-ip";
import { registerUser } from "@/lib/users/auth";
import { registerSchema } from "@/lib/users/schemas";

export const POST = route({
  auth: "public",
  body: registerSchema,
  handler: async ({ body, req }) => {
    await registerUser(body, requestIp(req.headers), new URL(req.url).searchParams.get("turnstile"));
    return ok(null, "注册成功");
  },
});
