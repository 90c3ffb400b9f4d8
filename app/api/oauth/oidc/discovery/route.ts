import { z } from "zod";
import { route } from "@/lib/api/route";
import { discoverOidcEndpoints } from "@/lib/accounts/oauth/oidc";

/** Root's system tab: the endpoints a well-known document names, to fill in before saving. */
export const GET = route({
  auth: "root",
  query: z.object({ well_known: z.string().trim().min(1, "请输入 Well-Known URL") }),
  handler: ({ query }) => discoverOidcEndpoints(query.well_known),
});
