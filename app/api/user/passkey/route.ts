import { ok, route } from "@/lib/api/route";
import { deleteAllPasskeys, listPasskeys, PASSKEY_MSG } from "@/lib/accounts/passkeys";

/** The caller's passkeys, with new-api's `enabled` and `last_used_at`. */
export const GET = route({
  auth: "user",
  handler: ({ caller }) => listPasskeys(caller.id),
});

/** new-api's "unbind the passkey": here, all of the caller's passkeys. */
export const DELETE = route({
  auth: "user",
  handler: async ({ caller }) => ok({ removed: await deleteAllPasskeys(caller.id) }, PASSKEY_MSG.deletedAll),
});
