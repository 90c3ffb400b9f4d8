import { route } from "@/lib/api/route";
import { listSelfGroups } from "@/lib/users/self";

export const GET = route({ auth: "user", handler: ({ caller }) => listSelfGroups(caller.group) });
