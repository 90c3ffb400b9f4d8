import { envelope } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { clearSessionCookie } from "@/lib/auth/cookie";

export const GET = route({
  auth: "public",
  handler: ({ req }) => envelope(null, "", { headers: { "set-cookie": clearSessionCookie(req) } }),
});
