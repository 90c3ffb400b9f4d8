import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { clearSessionCookie } from "@/lib/auth/cookie";
import { endSessionCookie } from "@/lib/auth/session-check";

// GET as the spec lists it, POST as the console sends it; both need New-Api-User (endSessionCookie).
const logout = route({
  auth: "public",
  handler: async ({ req }) => {
    // Ended on the server too: a copy of the cookie kept elsewhere is refused from now on.
    await endSessionCookie(req.headers);
    return envelope(null, "", { headers: { "set-cookie": clearSessionCookie(req) } });
  },
});

export const GET = logout;
export const POST = logout;
