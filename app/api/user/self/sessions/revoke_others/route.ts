import { route } from "@/lib/api/route";
import { endOwnOtherSessions } from "@/lib/accounts/sessions";

/** Ends every session of the caller but the one it called with; answers `{ count }`. */
export const POST = route({ auth: "user", handler: ({ caller }) => endOwnOtherSessions(caller) });
