import { callbackRoute } from "@/lib/accounts/oauth/respond";

export const GET = callbackRoute("oidc");
