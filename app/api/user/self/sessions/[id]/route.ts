import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { endOwnSession } from "@/lib/accounts/sessions";
import { clearSessionCookie } from "@/lib/auth/cookie";

/** Ends one of the caller's sessions; ending its own signs it out here too (the cookie is cleared). */
export const DELETE = route({
  auth: "user",
  handler: async ({ caller, params, req }) => {
    const ended = await endOwnSession(caller, params.id ?? "");
    return ended.current ? envelope(ended, "", { headers: { "set-cookie": clearSessionCookie(req) } }) : envelope(ended);
  },
});
