// Redemption codes, managed by admins (the /api/redemption routes and the /redemption page call
// these). Deleted codes are kept (soft delete, like tokens) but are not found by any call and can
// no longer be redeemed. Every state change is conditional on the state its rule allows, so an
// edit never lands on a code that was redeemed meanwhile.
import { textFilter } from "@/lib/db/text-search";
import { ApiError, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { type Page, pagedFind } from "@/lib/db/paging";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { nowSeconds } from "@/lib/db/num";
import { open, seal } from "@/lib/crypto/secret-box";
import { generateRedemptionKey, hashRedemptionKey, REDEMPTION_KEY_LENGTH, redemptionKeyHint } from "@/lib/redemptions/keys";
import { REDEMPTION_VIEW_SELECT, toRedemptionView, type RedemptionView } from "@/lib/redemptions/view";
import {
  REDEMPTION_MSG,
  REDEMPTION_STATUS,
  type RedemptionCreateInput,
  type RedemptionListQuery,
  type RedemptionSearchQuery,
  type RedemptionUpdateInput,
} from "@/lib/redemptions/schemas";

export type { RedemptionView };

const live = (id?: number): Prisma.RedemptionWhereInput => ({ deleted_at: null, ...(id ? { id } : {}) });

async function pageOf(where: Prisma.RedemptionWhereInput, q: RedemptionListQuery): Promise<Page<RedemptionView>> {
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.redemption.count({ where }),
    rows: (window) => db.redemption.findMany({ where, select: REDEMPTION_VIEW_SELECT, orderBy: { id: "desc" }, ...window }),
    view: (rows) => rows.map((r) => toRedemptionView(r)),
  });
}

/** Every code that is not deleted, newest first, codes masked. */
export const listRedemptions = (q: RedemptionListQuery) => pageOf(live(), q);

/** keyword (trimmed by the schema): an id (exact), a name fragment, or a whole code (by hash). */
export async function searchRedemptions(q: RedemptionSearchQuery): Promise<Page<RedemptionView>> {
  const keyword = q.keyword.trim();
  if (!keyword) return pageOf(live(), q);
  const or: Prisma.RedemptionWhereInput[] = [await textFilter("redemptions", "name", "contains", keyword)];
  if (/^\d{1,9}$/.test(keyword)) or.push({ id: Number(keyword) });
  if (keyword.length === REDEMPTION_KEY_LENGTH) or.push({ key_hash: hashRedemptionKey(keyword) });
  return pageOf({ AND: [live(), { OR: or }] }, q);
}

/** One code with the whole code readable. */
export async function getRedemption(id: number): Promise<RedemptionView> {
  const db = await getDb();
  const row = await db.redemption.findFirst({ where: live(id), select: { ...REDEMPTION_VIEW_SELECT, key_enc: true } });
  if (!row) throw notFound(REDEMPTION_MSG.notFound);
  const { key_enc, ...view } = row;
  return toRedemptionView(view, open(key_enc));
}

/**
 * Creates `count` unused codes of `quota` each, all or none (one insert), recorded as created by
 * `creator`. Answers the whole codes, in creation order: the only time they are handed out in a
 * batch (the console offers them as a text file named after the codes' name).
 */
export async function createRedemptions(creator: { id: number }, input: RedemptionCreateInput): Promise<string[]> {
  const keys = Array.from({ length: input.count }, generateRedemptionKey);
  const now = nowSeconds();
  const db = await getDb();
  await db.redemption.createMany({
    data: keys.map((key) => ({
      user_id: creator.id,
      key_hash: hashRedemptionKey(key),
      key_enc: seal(key),
      key_hint: redemptionKeyHint(key),
      name: input.name,
      quota: BigInt(input.quota),
      status: REDEMPTION_STATUS.unused,
      created_time: now,
    })),
  });
  return keys;
}

/** Why a conditional change found no row: the code is gone (404), or in a state the rule refuses. */
async function refusal(id: number, refused: string): Promise<ApiError> {
  const db = await getDb();
  const row = await db.redemption.findFirst({ where: live(id), select: { id: true } });
  return row ? new ApiError(refused, 400) : notFound(REDEMPTION_MSG.notFound);
}

async function viewOf(id: number): Promise<RedemptionView> {
  const db = await getDb();
  return toRedemptionView(await db.redemption.findUniqueOrThrow({ where: { id }, select: REDEMPTION_VIEW_SELECT }));
}

/**
 * Edits a code's name and quota, only while it is unused (status 1): the update is conditional on
 * that state, so it never changes a code redeemed (or disabled) meanwhile. Answers the code, masked.
 */
export async function updateRedemption(input: Pick<RedemptionUpdateInput, "id" | "name" | "quota">): Promise<RedemptionView> {
  const data: Prisma.RedemptionUpdateManyMutationInput = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.quota !== undefined) data.quota = BigInt(input.quota);
  const where = { ...live(input.id), status: REDEMPTION_STATUS.unused };
  const db = await getDb();
  const changed = Object.keys(data).length ? (await db.redemption.updateMany({ where, data })).count : await db.redemption.count({ where });
  if (changed === 0) throw await refusal(input.id, REDEMPTION_MSG.editOnlyUnused);
  return viewOf(input.id);
}

/** PUT ?status_only=true: enable (1) or disable (2). A used code keeps its status for good. */
export async function setRedemptionStatus(id: number, status: number | undefined): Promise<RedemptionView> {
  if (status !== REDEMPTION_STATUS.unused && status !== REDEMPTION_STATUS.disabled) throw new ApiError(REDEMPTION_MSG.statusInvalid, 400);
  const db = await getDb();
  const { count } = await db.redemption.updateMany({
    where: { ...live(id), status: { in: [REDEMPTION_STATUS.unused, REDEMPTION_STATUS.disabled] } },
    data: { status },
  });
  if (count === 0) throw await refusal(id, REDEMPTION_MSG.usedStatusLocked);
  return viewOf(id);
}

/** Soft delete: the row stays (who redeemed what), the code can no longer be redeemed or found. */
export async function deleteRedemption(id: number): Promise<void> {
  const db = await getDb();
  const { count } = await db.redemption.updateMany({ where: live(id), data: { deleted_at: new Date() } });
  if (count === 0) throw notFound(REDEMPTION_MSG.notFound);
}
