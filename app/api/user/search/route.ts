import { route } from "@/lib/api/route";
import { userSearchQuery } from "@/lib/users/admin-schemas";
import { searchUsers } from "@/lib/users/admin";

export const GET = route({ auth: "admin", query: userSearchQuery, handler: ({ query }) => searchUsers(query) });
