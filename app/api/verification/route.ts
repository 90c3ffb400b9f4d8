import { route, ok } from "@/lib/api/route";
import { requestIp } from "@/lib/net/client-ip";
import { sendVerificationEmail } from "@/lib/users/email";
import { sendCodeQuery } from "@/lib/users/email-schemas";

export const GET = route({
  auth: "public",
  query: sendCodeQuery,
  handler: async ({ query, req }) => {
    await sendVerificationEmail(query.email, requestIp(req.headers), query.turnstile ?? null);
    return ok(null, "验证码发送成功，请检查你的邮箱！");
  },
});
