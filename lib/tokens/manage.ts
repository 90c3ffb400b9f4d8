// A user's API tokens. Every query is scoped by the caller's user id: another user's token id is
// simply not found. Every committed change tells the relay's key cache to drop the token.
import { textFilter } from "@/lib/db/text-search";
import { ApiError, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { type Page, pagedFind } from "@/lib/db/paging";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { nowSeconds } from "@/lib/db/num";
import { open } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import { listSelfGroups } from "@/lib/users/self";
import { generateTokenKey, hashTokenKey, normalizeTokenKey, storedTokenKey, TOKEN_KEY_LENGTH } from "@/lib/tokens/keys";
import { expiryPassed } from "@/lib/tokens/status";
import { isTokenExhausted, isTokenExpired, TOKEN_STATUS, TOKEN_VIEW_SELECT, toTokenView, type TokenView } from "@/lib/tokens/view";
import { visibleRemain, withVisibleRemain } from "@/lib/billing/visible";
import { batchNames } from "@/lib/tokens/batch";
import {
  budgetRefusal,
  TOKEN_MSG,
  TOKEN_NAME_MAX,
  type TokenCreateInput,
  type TokenListQuery,
  type TokenSearchQuery,
  type TokenUpdateInput,
} from "@/lib/tokens/schemas";

/** Who is acting: the owner, with their group (for the usable-groups check). */
export type TokenOwner = { id: number; group: string };

const owned = (userId: number, id?: number): Prisma.TokenWhereInput => ({ user_id: userId, deleted_at: null, ...(id ? { id } : {}) });

async function pageOf(where: Prisma.TokenWhereInput, q: { p?: number; page_size?: number }): Promise<Page<TokenView>> {
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.token.count({ where }),
    rows: (window) => db.token.findMany({ where, select: TOKEN_VIEW_SELECT, orderBy: { id: "desc" }, ...window }),
    view: async (rows) => (await withVisibleRemain(rows)).map((r) => toTokenView(r)),
  });
}

export const listTokens = (owner: TokenOwner, q: TokenListQuery) => pageOf(owned(owner.id), q);

/**
 * keyword: the name contains it. token: a whole key (with or without sk-) matches by hash; a
 * fragment matches the stored hint (first and last four characters), so "sk-abcd" or "wxyz" find
 * a key shown as sk-abcd**********wxyz.
 */
export async function searchTokens(owner: TokenOwner, q: TokenSearchQuery): Promise<Page<TokenView>> {
  const and: Prisma.TokenWhereInput[] = [owned(owner.id)];
  if (q.keyword) and.push(await textFilter("tokens", "name", "contains", q.keyword));
  const key = normalizeTokenKey(q.token);
  if (key.length === TOKEN_KEY_LENGTH) and.push({ key_hash: hashTokenKey(key) });
  else if (key.length > 8) {
    const [head, tail] = await Promise.all([
      textFilter("tokens", "key_hint", "startsWith", key.slice(0, 4)),
      textFilter("tokens", "key_hint", "endsWith", key.slice(-4)),
    ]);
    and.push({ OR: [head, tail] });
  } else if (key) and.push(await textFilter("tokens", "key_hint", "contains", key));
  return pageOf({ AND: and }, q);
}

/** The owner's token with its whole key. */
export async function getToken(owner: TokenOwner, id: number): Promise<TokenView> {
  const db = await getDb();
  const row = await db.token.findFirst({ where: owned(owner.id, id), select: { ...TOKEN_VIEW_SELECT, key_enc: true } });
  if (!row) throw notFound(TOKEN_MSG.notFound);
  const { key_enc, ...view } = row;
  return toTokenView(await visibleRemain(view), open(key_enc));
}

function assertExpiry(expiredTime: number) {
  if (expiryPassed(expiredTime, nowSeconds())) throw new ApiError(TOKEN_MSG.expiryInvalid, 400);
}

/** A token may name no group, or one the user may use: UserUsableGroups plus their own (new-api #7180). */
async function assertUsableGroup(owner: TokenOwner, group: string) {
  if (!group) return;
  const usable = await listSelfGroups(owner.group);
  if (!Object.hasOwn(usable, group)) throw new ApiError(`无权使用分组 ${group}`, 403);
}

/** A budget > 0 goes with a period and a period with a budget > 0 (lib/tokens/schemas.ts). */
function assertBudget(budgetQuota: number | bigint, budgetPeriod: string) {
  const refused = budgetRefusal(budgetQuota, budgetPeriod);
  if (refused) throw new ApiError(refused.message, 400);
}

/** The checks every create passes, then the row of one new token named `name`, with its fresh key. */
async function checkedCreate(owner: TokenOwner, input: TokenCreateInput) {
  const expired_time = input.expired_time ?? -1;
  assertExpiry(expired_time);
  assertBudget(input.budget_quota ?? 0, input.budget_period ?? "");
  const group = input.group ?? "";
  await assertUsableGroup(owner, group);
  const now = nowSeconds();
  return (name: string) => {
    const key = generateTokenKey();
    const data: Prisma.TokenUncheckedCreateInput = {
      user_id: owner.id,
      ...storedTokenKey(key),
      name,
      status: TOKEN_STATUS.enabled,
      created_time: now,
      accessed_time: now,
      expired_time,
      remain_quota: BigInt(input.remain_quota ?? 0),
      unlimited_quota: input.unlimited_quota ?? false,
      model_limits_enabled: input.model_limits_enabled ?? false,
      model_limits: input.model_limits ?? "",
      allow_ips: input.allow_ips ?? "",
      group,
      rpm_limit: input.rpm_limit ?? 0,
      tpm_limit: input.tpm_limit ?? 0,
      concurrency_limit: input.concurrency_limit ?? 0,
      budget_quota: BigInt(input.budget_quota ?? 0),
      budget_period: input.budget_period ?? "",
    };
    return { key, data };
  };
}

/** Creates a token with a fresh key; the answer carries the whole key (sk-…). */
export async function createToken(owner: TokenOwner, input: TokenCreateInput): Promise<TokenView> {
  const { key, data } = (await checkedCreate(owner, input))(input.name);
  const db = await getDb();
  const row = await db.token.create({ data, select: TOKEN_VIEW_SELECT });
  return toTokenView(row, key);
}

/**
 * Creates `count` tokens in one transaction, all or none: the first keeps the name, the others
 * get -xxxxxx (batchNames), and each suffixed name must fit like a name sent alone. The answer
 * lists them in creation order, each with its whole key.
 */
export async function createTokens(owner: TokenOwner, input: TokenCreateInput, count: number): Promise<TokenView[]> {
  const next = await checkedCreate(owner, input);
  const names = batchNames(input.name, count);
  if (names.some((name) => name.length > TOKEN_NAME_MAX)) throw new ApiError(TOKEN_MSG.nameTooLong, 400);
  const created = names.map(next);
  const db = await getDb();
  const rows = await db.$transaction(async (tx) => {
    const out = [];
    for (const { data } of created) out.push(await tx.token.create({ data, select: TOKEN_VIEW_SELECT }));
    return out;
  });
  return rows.map((row, i) => toTokenView(row, created[i]!.key));
}

const CURRENT_SELECT = {
  id: true,
  key_hash: true,
  status: true,
  expired_time: true,
  remain_quota: true,
  unlimited_quota: true,
  group: true,
  budget_quota: true,
  budget_period: true,
} as const;

async function ownedCurrent(owner: TokenOwner, id: number) {
  const db = await getDb();
  const current = await db.token.findFirst({ where: owned(owner.id, id), select: CURRENT_SELECT });
  if (!current) throw notFound(TOKEN_MSG.notFound);
  return current;
}

async function writeOwned(owner: TokenOwner, id: number, keyHash: string, data: Prisma.TokenUpdateManyMutationInput): Promise<TokenView> {
  const db = await getDb();
  const { count } = await db.token.updateMany({ where: owned(owner.id, id), data });
  if (count === 0) throw notFound(TOKEN_MSG.notFound);
  await publishInvalidation({ kind: "token", keyHash, id });
  const row = await db.token.findFirstOrThrow({ where: { id }, select: TOKEN_VIEW_SELECT });
  return toTokenView(await visibleRemain(row));
}

/**
 * Edits the given fields; the key never changes. A token the relay marked expired (3) or
 * exhausted (4) is enabled again when the edit gives it time or quota. A past expiry is refused
 * unless it is the one already stored, so an expired token can still be renamed.
 */
export async function updateToken(owner: TokenOwner, input: TokenUpdateInput): Promise<TokenView> {
  const current = await ownedCurrent(owner, input.id);
  const { id, status, ...fields } = input;
  if (fields.expired_time !== undefined && fields.expired_time !== current.expired_time) assertExpiry(fields.expired_time);
  if (fields.group !== undefined && fields.group !== current.group) await assertUsableGroup(owner, fields.group);
  assertBudget(fields.budget_quota ?? current.budget_quota, fields.budget_period ?? current.budget_period);
  const data: Prisma.TokenUpdateManyMutationInput = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) (data as Record<string, unknown>)[name] = value;
  if (fields.budget_quota !== undefined) data.budget_quota = BigInt(fields.budget_quota);
  // remain_quota is edited as shown (the relay's open leases added back) and applied as the
  // difference, so a lease returned later neither inflates nor undoes the new value.
  const shown = (await visibleRemain(current)).remain_quota;
  if (fields.remain_quota !== undefined) data.remain_quota = { increment: BigInt(fields.remain_quota) - shown };
  const next = {
    expired_time: fields.expired_time ?? current.expired_time,
    remain_quota: fields.remain_quota !== undefined ? BigInt(fields.remain_quota) : shown,
    unlimited_quota: fields.unlimited_quota ?? current.unlimited_quota,
  };
  const marked = current.status === TOKEN_STATUS.expired || current.status === TOKEN_STATUS.exhausted;
  if (status === TOKEN_STATUS.enabled) assertCanEnable(next);
  if (status !== undefined) data.status = status;
  else if (marked && !isTokenExpired(next) && !isTokenExhausted(next)) data.status = TOKEN_STATUS.enabled;
  return writeOwned(owner, id, current.key_hash, data);
}

function assertCanEnable(t: Parameters<typeof isTokenExpired>[0]) {
  if (isTokenExpired(t)) throw new ApiError(TOKEN_MSG.expiredCannotEnable, 400);
  if (isTokenExhausted(t)) throw new ApiError(TOKEN_MSG.exhaustedCannotEnable, 400);
}

/** PUT /api/token/?status_only=true: enable (1) or disable (2) only. */
export async function setTokenStatus(owner: TokenOwner, id: number, status: number | undefined): Promise<TokenView> {
  if (status !== TOKEN_STATUS.enabled && status !== TOKEN_STATUS.disabled) throw new ApiError(TOKEN_MSG.statusInvalid, 400);
  const current = await ownedCurrent(owner, id);
  if (status === TOKEN_STATUS.enabled) assertCanEnable(await visibleRemain(current));
  return writeOwned(owner, id, current.key_hash, { status });
}

/** Soft delete: the row stays for the logs, the key stops working at once. */
export async function deleteToken(owner: TokenOwner, id: number): Promise<void> {
  const current = await ownedCurrent(owner, id);
  const db = await getDb();
  const { count } = await db.token.updateMany({ where: owned(owner.id, id), data: { deleted_at: new Date() } });
  if (count === 0) throw notFound(TOKEN_MSG.notFound);
  await publishInvalidation({ kind: "token", keyHash: current.key_hash, id });
}

/** How many tokens the chat pages look through for an enabled one (spec §9). */
export const CHAT_TOKEN_SCAN = 100;

/**
 * The whole key (sk-…) of the owner's first enabled token, in the token list's order, among the
 * first CHAT_TOKEN_SCAN; null when none is usable. The chat frame and /chat2link hand it to the
 * configured chat client.
 */
export async function firstEnabledTokenKey(owner: TokenOwner): Promise<string | null> {
  const page = await listTokens(owner, { p: 0, page_size: CHAT_TOKEN_SCAN });
  const first = page.items.find((t) => t.status === TOKEN_STATUS.enabled);
  return first ? (await getToken(owner, first.id)).key : null;
}
