import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { clearSessionCookie, sessionSetCookie } from "@/lib/auth/cookie";
import { requestIp } from "@/lib/net/client-ip";
import { deleteSelf, getSelf, updateSelf } from "@/lib/users/self";
import { updateSelfSchema } from "@/lib/users/schemas";

export const GET = route({ auth: "user", handler: ({ caller }) => getSelf(caller.id) });

export const PUT = route({
  auth: "user",
  body: updateSelfSchema,
  handler: async ({ caller, body, req }) => {
    const { user, authVersion } = await updateSelf(caller.id, body, requestIp(req.headers));
    if (authVersion === null || caller.via !== "session") return envelope(user, "");
    // The password changed: other sessions end, this one continues with a fresh cookie.
    const cookie = await sessionSetCookie(req, { id: user.id, username: user.username, role: user.role, ver: authVersion });
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
