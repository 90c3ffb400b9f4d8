import { route } from "@/lib/api/route";
import { parseUserId } from "@/lib/users/admin-schemas";
import { deleteUser, getUser } from "@/lib/users/admin";

export const GET = route({
  auth: "admin",
  handler: ({ caller, params }) => getUser(caller, parseUserId(params.id)),
});

/** Hard delete (the manage action "delete" is the soft one). */
export const DELETE = route({
  auth: "admin",
  handler: ({ caller, params }) => deleteUser(caller, parseUserId(params.id)),
});
