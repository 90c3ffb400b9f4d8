// Redeeming a code (POST /api/user/topup, the wallet page). The code turns used in ONE
// conditional update (WHERE key_hash = ? AND status = 1 AND not deleted) whose row count says
// whether this request won it; only then, in the same transaction, is the quota credited and the
// top-up logged. Two users (or two instances) redeeming one code at once: exactly one credit.
import { type ApiError, badRequest, notFound, tooManyRequests } from "@/lib/errors";
import { USER_MSG } from "@/lib/users/admin";
import { rateLimitStore } from "@/lib/auth/rate-limit";
import { publishInvalidation } from "@/lib/cache/bus";
import { getDb } from "@/lib/db";
import { retryConflicting, WRITE_TX } from "@/lib/db/retry";
import { num, nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { quotaText } from "@/lib/billing/quota-text";
import { getOptions } from "@/lib/options";
import { writeLog } from "@/lib/logs/account-log";
import { LOG_TYPE } from "@/lib/logs/write";
import { hashRedemptionKey } from "@/lib/redemptions/keys";
import { REDEMPTION_MSG, REDEMPTION_STATUS } from "@/lib/redemptions/schemas";

/** Who redeems: the signed-in user (the log row carries the name). */
export type Redeemer = { id: number; username: string };

// Failed attempts per user, CRITICAL_RATE_LIMIT per CRITICAL_RATE_LIMIT_DURATION (new-api puts the
// top-up behind its critical rate limit). Codes carry 128 random bits, so this only keeps a
// script from hammering the database; successful redemptions do not count.
const failureKey = (userId: number) => `redeem:fail:${userId}`;

async function refuseIfTooManyFailures(userId: number) {
  const limit = env.CRITICAL_RATE_LIMIT;
  if (limit <= 0) return;
  if ((await rateLimitStore().count(failureKey(userId), env.CRITICAL_RATE_LIMIT_DURATION)) >= limit) {
    throw tooManyRequests(REDEMPTION_MSG.tooManyFailures);
  }
}

/** Why a code could not be won: used, disabled, or unknown (deleted codes included). */
async function failure(keyHash: string): Promise<ApiError> {
  const db = await getDb();
  const row = await db.redemption.findUnique({ where: { key_hash: keyHash }, select: { status: true, deleted_at: true } });
  if (row && !row.deleted_at && row.status === REDEMPTION_STATUS.used) return badRequest(REDEMPTION_MSG.keyUsed);
  if (row && !row.deleted_at && row.status === REDEMPTION_STATUS.disabled) return badRequest(REDEMPTION_MSG.keyDisabled);
  return badRequest(REDEMPTION_MSG.keyInvalid);
}

/** A marker that rolls the transaction back when the redeemer's account is gone. */
class RedeemerGone extends Error {}

/**
 * Redeems `key` (trimmed) for `user`: credits the code's quota to the user's balance, marks the
 * code used by them, writes a top-up log row (type 1). Answers the credited quota.
 */
export async function redeemCode(user: Redeemer, key: string): Promise<number> {
  const code = key.trim();
  if (!code) throw badRequest(REDEMPTION_MSG.keyRequired);
  await refuseIfTooManyFailures(user.id);
  const keyHash = hashRedemptionKey(code);
  const db = await getDb();
  const display = await getOptions();
  const won = await retryConflicting(() =>
    db.$transaction(async (tx) => {
      const { count } = await tx.redemption.updateMany({
        where: { key_hash: keyHash, status: REDEMPTION_STATUS.unused, deleted_at: null },
        data: { status: REDEMPTION_STATUS.used, used_user_id: user.id, redeemed_time: nowSeconds() },
      });
      if (count === 0) return null;
      // The row is ours now (status 3 under this transaction's lock): its quota can no longer change.
      const redemption = await tx.redemption.findUniqueOrThrow({ where: { key_hash: keyHash }, select: { id: true, quota: true } });
      const credited = await tx.user.updateMany({
        where: { id: user.id, deleted_at: null },
        data: { quota: { increment: redemption.quota } },
      });
      if (credited.count === 0) throw new RedeemerGone();
      await writeLog(tx, {
        user_id: user.id,
        username: user.username,
        type: LOG_TYPE.topup,
        content: `通过兑换码充值 ${quotaText(redemption.quota, display)}，兑换码ID ${redemption.id}`,
        quota: redemption.quota,
      });
      return redemption;
    }, WRITE_TX),
  ).catch((error: unknown) => {
    if (error instanceof RedeemerGone) return "gone" as const;
    throw error;
  });
  if (won === "gone") throw notFound(USER_MSG.notFound);
  if (!won) {
    await rateLimitStore().hit(failureKey(user.id), Number.MAX_SAFE_INTEGER, env.CRITICAL_RATE_LIMIT_DURATION);
    throw await failure(keyHash);
  }
  // The relay caches users (status, group, a balance hint that sizes its leases).
  publishInvalidation({ kind: "user", id: user.id });
  return num(won.quota);
}
