import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { userCreateSchema, userListQuery, userUpdateSchema } from "@/lib/users/admin-schemas";
import { createUser, listUsers, updateUser } from "@/lib/users/admin";

export const GET = route({ auth: "admin", query: userListQuery, handler: ({ query }) => listUsers(query) });

export const POST = route({
  auth: "admin",
  body: userCreateSchema,
  handler: ({ caller, body, req }) => createUser(body, auditBy(caller, req)),
});

export const PUT = route({
  auth: "admin",
  body: userUpdateSchema,
  handler: ({ caller, body, req }) => updateUser(caller, body, auditBy(caller, req)),
});
