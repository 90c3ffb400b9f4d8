import { route } from "@/lib/api/route";
import { userManageSchema } from "@/lib/users/admin-schemas";
import { manageUser } from "@/lib/users/admin";

export const POST = route({ auth: "admin", body: userManageSchema, handler: ({ caller, body }) => manageUser(caller, body) });
