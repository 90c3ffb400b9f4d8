import { route } from "@/lib/api/route";
import { twoFactorStats } from "@/lib/accounts/two-factor";

export const GET = route({ auth: "admin", handler: () => twoFactorStats() });
