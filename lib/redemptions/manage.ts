// Redemption codes, managed by admins (the /api/redemption routes and the /redemption page call
// these). Deleted codes are kept (soft delete, like tokens) but are not found by any call and can
// no longer be redeemed. Every state change is conditional on the state its rule allows, so an
// edit never lands on a code that was redeemed meanwhile. Creating, editing, enabling or disabling
// and deleting codes is audited, never with a code itself.
import { textFilter } from "@/lib/db/text-search";
import { ApiError, notFound } from "@/lib/errors";
import type { AuditAction } from "@/lib/audit/actions";
import { type AuditBy, writeAudit } from "@/lib/audit/write";
import { getDb } from "@/lib/db";
import { type Page, pagedFind } from "@/lib/db/paging";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { nowSeconds, num } from "@/lib/db/num";
import { changedFields } from "@/lib/audit/detail";
import { open } from "@/lib/crypto/secret-box";
import { generateRedemptionKey, hashRedemptionKey, REDEMPTION_KEY_LENGTH, storedRedemptionKey } from "@/lib/redemptions/keys";
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

/** Writes an audit row about code `id` (none for a batch). */
const auditCode = (by: AuditBy, id: number | undefined, action: AuditAction, detail: Record<string, unknown>) =>
  writeAudit({ ...by, action, target_type: "redemption", target_id: id, detail });

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
export async function createRedemptions(creator: { id: number }, input: RedemptionCreateInput, by: AuditBy): Promise<string[]> {
  const keys = Array.from({ length: input.count }, generateRedemptionKey);
  const now = nowSeconds();
  const db = await getDb();
  await db.redemption.createMany({
    data: keys.map((key) => ({
      user_id: creator.id,
      ...storedRedemptionKey(key),
      name: input.name,
      quota: BigInt(input.quota),
      status: REDEMPTION_STATUS.unused,
      created_time: now,
    })),
  });
  await auditCode(by, undefined, "redemption.create", { name: input.name, count: input.count, quota: input.quota });
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
export async function updateRedemption(input: Pick<RedemptionUpdateInput, "id" | "name" | "quota">, by: AuditBy): Promise<RedemptionView> {
  const data: Prisma.RedemptionUpdateManyMutationInput = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.quota !== undefined) data.quota = BigInt(input.quota);
  const where = { ...live(input.id), status: REDEMPTION_STATUS.unused };
  const db = await getDb();
  const before = await db.redemption.findFirst({ where, select: { name: true, quota: true } });
  const changed = Object.keys(data).length ? (await db.redemption.updateMany({ where, data })).count : await db.redemption.count({ where });
  if (changed === 0) throw await refusal(input.id, REDEMPTION_MSG.editOnlyUnused);
  const after = await viewOf(input.id);
  const changes = before ? changedFields({ name: before.name, quota: num(before.quota) }, after, ["name", "quota"]) : {};
  if (Object.keys(changes).length > 0) await auditCode(by, input.id, "redemption.update", changes);
  return after;
}

/** PUT ?status_only=true: enable (1) or disable (2). A used code keeps its status for good. */
export async function setRedemptionStatus(id: number, status: number | undefined, by: AuditBy): Promise<RedemptionView> {
  if (status !== REDEMPTION_STATUS.unused && status !== REDEMPTION_STATUS.disabled) throw new ApiError(REDEMPTION_MSG.statusInvalid, 400);
  const db = await getDb();
  const where = { ...live(id), status: { in: [REDEMPTION_STATUS.unused, REDEMPTION_STATUS.disabled] } };
  const before = await db.redemption.findFirst({ where, select: { status: true } });
  const { count } = await db.redemption.updateMany({ where, data: { status } });
  if (count === 0) throw await refusal(id, REDEMPTION_MSG.usedStatusLocked);
  const after = await viewOf(id);
  if (before && before.status !== status)
    await auditCode(by, id, "redemption.status", { name: after.name, status: { from: before.status, to: status } });
  return after;
}

/** Soft delete: the row stays (who redeemed what), the code can no longer be redeemed or found. */
export async function deleteRedemption(id: number, by: AuditBy): Promise<void> {
  const db = await getDb();
  const row = await db.redemption.findFirst({ where: live(id), select: { name: true } });
  const { count } = await db.redemption.updateMany({ where: live(id), data: { deleted_at: new Date() } });
  if (count === 0) throw notFound(REDEMPTION_MSG.notFound);
  await auditCode(by, id, "redemption.delete", { name: row?.name ?? "" });
}
