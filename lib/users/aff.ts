// Invitations (new-api model/user.go, inventory §4.5). Every user has an invite code; a user who
// registers with it makes the inviter's aff_count, aff_quota and aff_history_quota grow
// (lib/users/auth.ts registerUser). The reward waits in aff_quota until its owner moves it to the
// spendable balance here, at least one quota unit (QuotaPerUnit) at a time.
import { randomInt } from "node:crypto";
import { badRequest, notFound } from "@/lib/errors";
import { quotaText } from "@/lib/billing/quota-text";
import { visibleQuota } from "@/lib/billing/visible";
import { publishInvalidation } from "@/lib/cache/bus";
import { type Db, getDb } from "@/lib/db";
import { num } from "@/lib/db/num";
import { getOptions } from "@/lib/options";
import { AFF_MSG, isBelowTransferMinimum } from "@/lib/users/self-form";

/** Letters and digits that cannot be mistaken for each other (no 0/O, 1/l/I). */
const AFF_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789";
export const AFF_CODE_LENGTH = 6;

/** A random invite code (56^6 ≈ 3·10^10 codes); uniqueness is the column's, callers retry on a clash. */
export function newAffCode(): string {
  let code = "";
  for (let i = 0; i < AFF_CODE_LENGTH; i++) code += AFF_ALPHABET[randomInt(AFF_ALPHABET.length)];
  return code;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "P2002";

const CODE_ATTEMPTS = 6;

/**
 * `GET /api/user/aff`: the user's invite code, created on first ask for users who have none (users
 * created by an admin, or before codes existed). The code is set only WHERE it is still empty, so
 * two first asks at once (two tabs, two instances) both answer the one code that was stored; a
 * code that another user already holds is replaced by a fresh one.
 */
export async function getAffCode(userId: number): Promise<string> {
  const db = await getDb();
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const row = await db.user.findFirst({ where: { id: userId, deleted_at: null }, select: { aff_code: true } });
    if (!row) throw notFound(AFF_MSG.userNotFound);
    if (row.aff_code) return row.aff_code;
    try {
      // No row changed: another request stored a code meanwhile; the next read returns it.
      await db.user.updateMany({
        where: { id: userId, deleted_at: null, OR: [{ aff_code: null }, { aff_code: "" }] },
        data: { aff_code: newAffCode() },
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw badRequest(AFF_MSG.codeFailed);
}

/**
 * Moves `n` from the user's aff_quota to quota: ONE conditional UPDATE, so concurrent transfers
 * (on any number of instances) never move more than there is. True when it happened. Exported
 * with its database for the concurrency tests on every provider.
 */
export async function moveAffQuota(db: Db, userId: number, n: bigint): Promise<boolean> {
  const count =
    await db.$executeRaw`UPDATE users SET aff_quota = aff_quota - ${n}, quota = quota + ${n} WHERE id = ${userId} AND deleted_at IS NULL AND aff_quota >= ${n}`;
  return count === 1;
}

export type AffTransferResult = {
  /** The spendable balance after the transfer, as shown everywhere (lib/billing/visible.ts). */
  quota: number;
  aff_quota: number;
};

/**
 * `POST /api/user/aff_transfer`: moves `quota` units of invite reward to the balance. At least one
 * quota unit (QuotaPerUnit, new-api's rule), at most what aff_quota holds.
 */
export async function transferAffQuota(userId: number, quota: number): Promise<AffTransferResult> {
  const options = await getOptions();
  if (isBelowTransferMinimum(quota, options.QuotaPerUnit)) {
    throw badRequest(AFF_MSG.transferTooSmall(quotaText(Math.trunc(options.QuotaPerUnit), options)));
  }
  const db = await getDb();
  if (!(await moveAffQuota(db, userId, BigInt(quota)))) {
    const exists = await db.user.findFirst({ where: { id: userId, deleted_at: null }, select: { id: true } });
    throw exists ? badRequest(AFF_MSG.insufficient) : notFound(AFF_MSG.userNotFound);
  }
  // The relay's cached user (its balance hint sizes leases) must see the new balance.
  publishInvalidation({ kind: "user", id: userId });
  const row = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { id: true, quota: true, aff_quota: true } });
  return { quota: num((await visibleQuota(row)).quota), aff_quota: num(row.aff_quota) };
}
