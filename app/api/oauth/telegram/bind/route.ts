import { bindTelegram, TELEGRAM_MSG } from "@/lib/accounts/telegram";
import { ok, route } from "@/lib/api/route";
import { authenticate } from "@/lib/auth/authenticate";
import { isNavigation, navigationCaller } from "@/lib/auth/navigation";
import { requestIp } from "@/lib/net/client-ip";

// Called by the console (the envelope), or reached by the widget's own redirect from one of our
// pages, as new-api's bind is: then the browser goes back to personal settings.
export const GET = route({
  auth: "public",
  handler: async ({ req }) => {
    const navigation = isNavigation(req.headers);
    const caller = navigation ? await navigationCaller(req.headers) : await authenticate(req.headers, "user");
    await bindTelegram(caller.id, new URL(req.url).searchParams, requestIp(req.headers));
    if (!navigation) return ok(null, TELEGRAM_MSG.bound);
    return new Response(null, { status: 302, headers: { location: "/setting", "cache-control": "no-store" } });
  },
});
