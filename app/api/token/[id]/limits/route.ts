import { route } from "@/lib/api/route";
import { idParam } from "@/lib/db/paging";
import { getTokenLimitUsage } from "@/lib/tokens/limit-usage";
import { TOKEN_MSG } from "@/lib/tokens/schemas";

export const GET = route({
  auth: "user",
  handler: ({ caller, params }) => getTokenLimitUsage(caller, idParam(params.id, TOKEN_MSG.notFound)),
});
