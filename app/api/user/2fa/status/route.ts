import { route } from "@/lib/api/route";
import { twoFactorStatus } from "@/lib/accounts/two-factor";

export const GET = route({ auth: "user", handler: ({ caller }) => twoFactorStatus(caller.id) });
