import { route } from "@/lib/api/route";
import { tokenCreateSchema, tokenListQuery, tokenUpdateQuery, tokenUpdateSchema } from "@/lib/tokens/schemas";
import { createToken, listTokens, setTokenStatus, updateToken } from "@/lib/tokens/manage";

export const GET = route({ auth: "user", query: tokenListQuery, handler: ({ caller, query }) => listTokens(caller, query) });

export const POST = route({ auth: "user", body: tokenCreateSchema, handler: ({ caller, body }) => createToken(caller, body) });

export const PUT = route({
  auth: "user",
  query: tokenUpdateQuery,
  body: tokenUpdateSchema,
  handler: ({ caller, query, body }) => (query.status_only ? setTokenStatus(caller, body.id, body.status) : updateToken(caller, body)),
});
