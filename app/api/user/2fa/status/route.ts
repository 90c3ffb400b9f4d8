import { route } from "@/lib/api/route";
import { twoFactorStatus } from "@/lib/accounts/two-factor";
import { requestIp } from "@/lib/net/client-ip";

export const GET = route({ auth: "user", handler: ({ caller, req }) => twoFactorStatus(caller.id, requestIp(req.headers)) });
