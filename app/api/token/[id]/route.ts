import { route } from "@/lib/api/route";
import { TOKEN_MSG } from "@/lib/tokens/schemas";
import { idParam } from "@/lib/db/paging";
import { deleteToken, getToken } from "@/lib/tokens/manage";

export const GET = route({
  auth: "user",
  handler: ({ caller, params }) => getToken(caller, idParam(params.id, TOKEN_MSG.notFound)),
});

export const DELETE = route({
  auth: "user",
  handler: ({ caller, params }) => deleteToken(caller, idParam(params.id, TOKEN_MSG.notFound)),
});
