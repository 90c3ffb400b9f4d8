import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { clearSessionCookie } from "@/lib/auth/cookie";
import { endOtherSessions, reissueSession } from "@/lib/auth/sessions";
import { requestIp } from "@/lib/net/client-ip";
import { deleteSelf, getSelf, updateSelf } from "@/lib/users/self";
import { updateSelfSchema } from "@/lib/users/schemas";

export const GET = route({ auth: "user", handler: ({ caller }) => getSelf(caller.id) });

export const PUT = route({
  auth: "user",
  body: updateSelfSchema,
  handler: async ({ caller, body, req }) => {
    const { user, authVersion } = await updateSelf(caller.id, body, requestIp(req.headers));
    if (authVersion === null) return envelope(user, "");
    // The password changed: every other session ends, this one continues with a fresh cookie.
    await endOtherSessions(user.id, caller.session?.jti ?? null);
    if (!caller.session) return envelope(user, "");
    const cookie = await reissueSession(req, caller.session, { ...user, auth_version: authVersion });
    return envelope(user, "", { headers: { "set-cookie": cookie } });
  },
});

export const DELETE = route({
  auth: "user",
  handler: async ({ caller, req }) => {
    await deleteSelf(caller);
    return envelope(null, "", { headers: { "set-cookie": clearSessionCookie(req) } });
  },
});
