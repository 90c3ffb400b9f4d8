import { route } from "@/lib/api/route";
import { tokenCreateSchema, tokenListQuery, tokenUpdateQuery, tokenUpdateSchema } from "@/lib/tokens/schemas";
import { createToken, createTokens, listTokens, setTokenStatus, updateToken } from "@/lib/tokens/manage";

export const GET = route({ auth: "user", query: tokenListQuery, handler: ({ caller, query }) => listTokens(caller, query) });

/** One token answers as itself; a `count` batch answers as the list of tokens made. */
export const POST = route({
  auth: "user",
  body: tokenCreateSchema,
  handler: ({ caller, body }) => (body.count === undefined ? createToken(caller, body) : createTokens(caller, body, body.count)),
});

export const PUT = route({
  auth: "user",
  query: tokenUpdateQuery,
  body: tokenUpdateSchema,
  handler: ({ caller, query, body }) => (query.status_only ? setTokenStatus(caller, body.id, body.status) : updateToken(caller, body)),
});
