import { signInAnswer } from "@/lib/accounts/provider-accounts";
import { signInWithWeChat } from "@/lib/accounts/wechat";
import { wechatSignInQuery } from "@/lib/accounts/wechat-schemas";
import { route } from "@/lib/api/route";
import { refuseCrossSite } from "@/lib/auth/navigation";
import { requestIp } from "@/lib/net/client-ip";

export const GET = route({
  auth: "public",
  query: wechatSignInQuery,
  handler: async ({ query, req }) => {
    refuseCrossSite(req.headers);
    return signInAnswer(req, await signInWithWeChat(query.code, query.aff, requestIp(req.headers)), "wechat");
  },
});
