import { route } from "@/lib/api/route";
import { listOwnSessions } from "@/lib/accounts/sessions";

/** The caller's signed-in sessions, its own marked `current`. */
export const GET = route({ auth: "user", handler: ({ caller }) => listOwnSessions(caller) });
