import { route } from "@/lib/api/route";
import { userCreateSchema, userListQuery, userUpdateSchema } from "@/lib/users/admin-schemas";
import { createUser, listUsers, updateUser } from "@/lib/users/admin";

export const GET = route({ auth: "admin", query: userListQuery, handler: ({ query }) => listUsers(query) });

export const POST = route({ auth: "admin", body: userCreateSchema, handler: ({ body }) => createUser(body) });

export const PUT = route({ auth: "admin", body: userUpdateSchema, handler: ({ caller, body }) => updateUser(caller, body) });
