import { route } from "@/lib/api/route";
import { requireStepUp } from "@/lib/auth/step-up";
import { createAccessToken } from "@/lib/users/self";

// A new access token replaces the old one: the caller proves again who they are first.
export const GET = route({
  auth: "user",
  handler: ({ caller }) => {
    requireStepUp(caller);
    return createAccessToken(caller.id);
  },
});
