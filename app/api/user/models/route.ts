import { route } from "@/lib/api/route";
import { listUserModels } from "@/lib/users/self";

export const GET = route({ auth: "user", handler: ({ caller }) => listUserModels(caller.group) });
