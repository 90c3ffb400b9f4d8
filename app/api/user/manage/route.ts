import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { userManageSchema } from "@/lib/users/admin-schemas";
import { manageUser } from "@/lib/users/admin";

export const POST = route({
  auth: "admin",
  body: userManageSchema,
  handler: ({ caller, body, req }) => manageUser(caller, body, auditBy(caller, req)),
});
