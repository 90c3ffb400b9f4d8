import { route } from "@/lib/api/route";
import { getAffCode } from "@/lib/users/aff";

export const GET = route({ auth: "user", handler: ({ caller }) => getAffCode(caller.id) });
