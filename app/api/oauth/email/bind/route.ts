import { route, ok } from "@/lib/api/route";
import { bindEmail, EMAIL_MSG } from "@/lib/users/email";
import { bindEmailQuery } from "@/lib/users/email-schemas";

export const GET = route({
  auth: "user",
  query: bindEmailQuery,
  handler: async ({ caller, query }) => {
    await bindEmail(caller.id, query.email, query.code);
    return ok(null, EMAIL_MSG.bound);
  },
});
