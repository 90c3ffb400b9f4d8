import { signInAnswer } from "@/lib/accounts/provider-accounts";
import { signInWithTelegram } from "@/lib/accounts/telegram";
import { route } from "@/lib/api/route";
import { refuseCrossSite } from "@/lib/auth/navigation";
import { requestIp } from "@/lib/net/client-ip";

// The widget's fields arrive as the query, all of them signed: none is parsed away here.
export const GET = route({
  auth: "public",
  handler: async ({ req }) => {
    refuseCrossSite(req.headers);
    return signInAnswer(req, await signInWithTelegram(new URL(req.url).searchParams, requestIp(req.headers)), "telegram");
  },
});
