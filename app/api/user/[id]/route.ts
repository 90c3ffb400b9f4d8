import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { USER_MSG } from "@/lib/users/manage-rules";
import { idParam } from "@/lib/db/paging";
import { deleteUser, getUser } from "@/lib/users/admin";

export const GET = route({
  auth: "admin",
  handler: ({ caller, params }) => getUser(caller, idParam(params.id, USER_MSG.notFound)),
});

/** Hard delete (the manage action "delete" is the soft one). */
export const DELETE = route({
  auth: "admin",
  handler: ({ caller, params, req }) => deleteUser(caller, idParam(params.id, USER_MSG.notFound), auditBy(caller, req)),
});
