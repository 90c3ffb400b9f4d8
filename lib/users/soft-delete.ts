// Soft-deleting an account, whoever asks (the user on the personal page, an admin on the users
// page): in one transaction the user row is marked deleted (access token cleared, sessions ended
// through auth_version) and its keys with it; then the keys and the user leave the caches of every
// process of this instance. Other instances load deleted keys as gone.
import { endOtherSessions } from "@/lib/auth/sessions";
import { publishInvalidation } from "@/lib/cache/bus";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";

/**
 * Soft-deletes user `id` if it still matches `guard` (the state the caller's rules were checked
 * against). False, and nothing changed, when it no longer does.
 */
export async function softDeleteUser(id: number, guard: Prisma.UserWhereInput = {}): Promise<boolean> {
  const db = await getDb();
  const deletedAt = new Date();
  const keys = await db.$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({
      where: { ...guard, id, deleted_at: null },
      data: { deleted_at: deletedAt, access_token_hash: null, auth_version: { increment: 1 } },
    });
    if (count === 0) return null;
    const rows = await tx.token.findMany({ where: { user_id: id, deleted_at: null }, select: { id: true, key_hash: true } });
    await tx.token.updateMany({ where: { user_id: id, deleted_at: null }, data: { deleted_at: deletedAt } });
    return rows;
  });
  if (!keys) return false;
  await endOtherSessions(id, null);
  await Promise.all([
    ...keys.map((key) => publishInvalidation({ kind: "token", keyHash: key.key_hash, id: key.id })),
    publishInvalidation({ kind: "user", id }),
  ]);
  return true;
}
