import { route, ok } from "@/lib/api/route";
import { requestIp } from "@/lib/net/client-ip";
import { sendPasswordResetEmail } from "@/lib/users/email";
import { sendCodeQuery } from "@/lib/users/email-schemas";

export const GET = route({
  auth: "public",
  query: sendCodeQuery,
  handler: async ({ query, req }) => {
    await sendPasswordResetEmail(query.email, requestIp(req.headers), query.turnstile ?? null, new URL(req.url).origin);
    return ok(null, "重置邮件发送成功，请检查邮箱！");
  },
});
