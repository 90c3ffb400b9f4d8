// Fills users.username_key for rows the migration left without one (lib/users/username.ts). The
// migration keyed printable-ASCII names in SQL; a name with other characters needs NFKC and
// Unicode case folding, which only code does the same on every database. Runs at start on the
// master node (lib/db/prepare.ts); with nothing to fill it costs one indexed query.
import { ApiError } from "@/lib/errors";
import type { Db } from "@/lib/db/types";
import { USERNAME_MSG, usernameKey } from "@/lib/users/username";
import { componentLogger } from "@/lib/log";

const log = componentLogger("users");

/**
 * Refuses a name another account holds, exactly or by its key (case and form folded). Soft-deleted
 * accounts keep their names: a name is never handed to someone else. The unique index on
 * username_key decides races; callers map its violation to the same message.
 */
export async function assertUsernameFree(db: Pick<Db, "user">, username: string): Promise<void> {
  const taken = await db.user.findFirst({
    where: { OR: [{ username }, { username_key: usernameKey(username) }] },
    select: { id: true },
  });
  if (taken) throw new ApiError(USERNAME_MSG.taken, 400);
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "P2002";

/**
 * Keys every user row without one. A row whose key another row already holds (two names that
 * differed only by case or form before keys existed) keeps NULL: the start goes on, the row still
 * signs in by its exact name, and the log names it so an admin can rename one of the two.
 * Answers the ids left without a key.
 */
export async function fillUsernameKeys(db: Db): Promise<number[]> {
  const rows = await db.user.findMany({ where: { username_key: null }, select: { id: true, username: true }, orderBy: { id: "asc" } });
  const left: number[] = [];
  for (const row of rows) {
    const key = usernameKey(row.username);
    try {
      // Conditional: another instance starting at once may have keyed it already.
      await db.user.updateMany({ where: { id: row.id, username_key: null }, data: { username_key: key } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      left.push(row.id);
      // It keeps signing in by its exact name; renaming one of them ends the clash.
      log.warn({ userId: row.id, username: row.username }, "username clashes with another ignoring case and form");
    }
  }
  return left;
}
