import { bindWeChat, WECHAT_MSG } from "@/lib/accounts/wechat";
import { wechatBindInput } from "@/lib/accounts/wechat-schemas";
import { ok, route } from "@/lib/api/route";
import { requestIp } from "@/lib/net/client-ip";

// The spec's GET with ?code, and new-api's newer POST with {code}.
export const GET = route({
  auth: "user",
  query: wechatBindInput,
  handler: async ({ caller, query, req }) => {
    await bindWeChat(caller.id, query.code, requestIp(req.headers));
    return ok(null, WECHAT_MSG.bound);
  },
});

export const POST = route({
  auth: "user",
  body: wechatBindInput,
  handler: async ({ caller, body, req }) => {
    await bindWeChat(caller.id, body.code, requestIp(req.headers));
    return ok(null, WECHAT_MSG.bound);
  },
});
