import { route } from "@/lib/api/route";
import { createAccessToken } from "@/lib/users/self";

export const GET = route({ auth: "user", handler: ({ caller }) => createAccessToken(caller.id) });
