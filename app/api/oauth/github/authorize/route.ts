import { authorizeRoute } from "@/lib/accounts/oauth/respond";

export const GET = authorizeRoute("github");
