import { route } from "@/lib/api/route";
import { parseTokenId } from "@/lib/tokens/schemas";
import { deleteToken, getToken } from "@/lib/tokens/manage";

export const GET = route({
  auth: "user",
  handler: ({ caller, params }) => getToken(caller, parseTokenId(params.id)),
});

export const DELETE = route({
  auth: "user",
  handler: ({ caller, params }) => deleteToken(caller, parseTokenId(params.id)),
});
