import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { issueState } from "@/lib/accounts/oauth/flow";
import { affQuery } from "@/lib/accounts/oauth/respond";

/** new-api's call: a single-use state for GitHub or LinuxDO, bound to this browser (10 minutes). */
export const GET = route({
  auth: "optional",
  query: affQuery,
  handler: async ({ caller, query, req }) => {
    const { state, setCookie } = await issueState(req, caller, query.aff);
    return envelope(state, "", setCookie ? { headers: { "set-cookie": setCookie } } : undefined);
  },
});
