import { ok, route } from "@/lib/api/route";
import { stepUpMethods, VERIFY_MSG, verifyIdentity, verifySchema } from "@/lib/accounts/step-up";
import { requestIp } from "@/lib/net/client-ip";

/** Which ways the caller's account has to verify (password, two-factor code, passkey). */
export const GET = route({ auth: "user", handler: ({ caller }) => stepUpMethods(caller.id) });

export const POST = route({
  auth: "user",
  body: verifySchema,
  handler: async ({ caller, body, req }) => ok(await verifyIdentity(caller, body, requestIp(req.headers)), VERIFY_MSG.verified),
});
