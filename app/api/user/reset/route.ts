import { route } from "@/lib/api/route";
import { confirmPasswordReset } from "@/lib/users/email";
import { resetConfirmBody } from "@/lib/users/email-schemas";

/** Answers the new password as data (spec §7). */
export const POST = route({ auth: "public", body: resetConfirmBody, handler: ({ body }) => confirmPasswordReset(body.email, body.token) });
