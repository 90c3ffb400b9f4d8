import { route } from "@/lib/api/route";
import { tokenListQuery, tokenUpdateQuery } from "@/lib/tokens/schemas";
import { tokenCreateBody, tokenUpdateBody } from "@/lib/tokens/body-schemas";
import { createToken, createTokens, listTokens, setTokenStatus, updateToken } from "@/lib/tokens/manage";

export const GET = route({ auth: "user", query: tokenListQuery, handler: ({ caller, query }) => listTokens(caller, query) });

/** One token answers as itself; a `count` batch answers as the list of tokens made. */
export const POST = route({
  auth: "user",
  body: tokenCreateBody,
  handler: ({ caller, body }) => (body.count === undefined ? createToken(caller, body) : createTokens(caller, body, body.count)),
});

export const PUT = route({
  auth: "user",
  query: tokenUpdateQuery,
  body: tokenUpdateBody,
  handler: ({ caller, query, body }) => (query.status_only ? setTokenStatus(caller, body.id, body.status) : updateToken(caller, body)),
});
