import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { clearSessionCookie } from "@/lib/auth/cookie";
import { endSessionCookie } from "@/lib/auth/session-check";

export const GET = route({
  auth: "public",
  handler: async ({ req }) => {
    // Ended on the server too: a copy of the cookie kept elsewhere is refused from now on.
    await endSessionCookie(req.headers.get("cookie"));
    return envelope(null, "", { headers: { "set-cookie": clearSessionCookie(req) } });
  },
});
