// User administration (admin tier). The rules of new-api, plus its fixes: an actor acts only on
// users it outranks (canManageUser) and gives roles only below its own (canAssignRole); only root
// promotes or changes roles; root is never disabled, deleted or demoted. Rows are read through
// USER_PUBLIC_SELECT, so no password or access-token hash can reach an answer. Every change is
// written to the audit trail (who, which user, what from and to; a new password only as changed).
import { ApiError, forbidden, notFound } from "@/lib/errors";
import { changedFields } from "@/lib/audit/detail";
import type { AuditAction } from "@/lib/audit/actions";
import { type AuditBy, type AuditEntry, writeAudit, writeAudits } from "@/lib/audit/write";
import { endOtherSessions } from "@/lib/auth/sessions";
import { getDb } from "@/lib/db";
import { type Page, pagedFind } from "@/lib/db/paging";
import { textFilter } from "@/lib/db/text-search";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { num, nowSeconds } from "@/lib/db/num";
import { hashPassword } from "@/lib/auth/password";
import { canAssignRole, canManageUser, isRoot, ROLE, USER_STATUS, VALID_ROLES } from "@/lib/auth/roles";
import { publishInvalidation } from "@/lib/cache/bus";
import { getOptions } from "@/lib/options";
import { quotaText } from "@/lib/billing/quota-text";
import { writeLog } from "@/lib/logs/account-log";
import { LOG_TYPE } from "@/lib/logs/write";
import { type Actor, editRefusal, manageRefusal, USER_MSG } from "@/lib/users/manage-rules";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";
import { visibleQuota, withVisibleQuota } from "@/lib/billing/visible";
import { softDeleteUser } from "@/lib/users/soft-delete";
import { assertEmailFree } from "@/lib/users/email-owner";
import { usernameColumns, usernameKey } from "@/lib/users/username";
import { assertUsernameFree } from "@/lib/users/username-keys";
import type { UserCreateInput, UserListQuery, UserManageInput, UserSearchQuery, UserUpdateInput } from "@/lib/users/admin-schemas";

export type { Actor } from "@/lib/users/manage-rules";
export { USER_MSG } from "@/lib/users/manage-rules";

async function pageOf(where: Prisma.UserWhereInput, q: UserListQuery): Promise<Page<UserView>> {
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.user.count({ where }),
    rows: (window) => db.user.findMany({ where, select: USER_PUBLIC_SELECT, orderBy: { id: "desc" }, ...window }),
    view: async (rows) => (await withVisibleQuota(rows)).map(toUserView),
  });
}

/** Every user, newest first; soft-deleted users included (DeletedAt set) so the console shows them as deactivated. */
export const listUsers = (q: UserListQuery) => pageOf({}, q);

/** keyword: id (exact), username, display name or e-mail (contains, literally); group: exact. */
export async function searchUsers(q: UserSearchQuery): Promise<Page<UserView>> {
  const and: Prisma.UserWhereInput[] = [];
  if (q.keyword) {
    const or = (await Promise.all(
      (["username", "display_name", "email"] as const).map((column) => textFilter("users", column, "contains", q.keyword)),
    )) as Prisma.UserWhereInput[];
    if (/^\d{1,9}$/.test(q.keyword)) or.push({ id: Number(q.keyword) });
    and.push({ OR: or });
  }
  if (q.group) and.push({ group: q.group });
  return pageOf({ AND: and }, q);
}

export async function getUser(actor: Actor, id: number): Promise<UserView> {
  const db = await getDb();
  const user = await db.user.findUnique({ where: { id }, select: USER_PUBLIC_SELECT });
  if (!user) throw notFound(USER_MSG.notFound);
  if (editRefusal(actor, user)) throw forbidden(USER_MSG.outrankedRead);
  return toUserView(await visibleQuota(user));
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "P2002";

/** An audit row about user `id`. */
const userAudit = (by: AuditBy, id: number, action: AuditAction, detail?: Record<string, unknown>): AuditEntry => ({
  ...by,
  action,
  target_type: "user",
  target_id: id,
  detail,
});

/** An ordinary user (role 1) created by an admin. */
export async function createUser(input: UserCreateInput, by: AuditBy): Promise<UserView> {
  const db = await getDb();
  await assertUsernameFree(db, input.username);
  try {
    const user = await db.user.create({
      data: {
        ...usernameColumns(input.username),
        display_name: input.display_name || input.username,
        password: await hashPassword(input.password),
        role: ROLE.user,
        status: USER_STATUS.enabled,
        created_time: nowSeconds(),
      },
      select: USER_PUBLIC_SELECT,
    });
    await writeAudit(userAudit(by, user.id, "user.create", { username: user.username, display_name: user.display_name }));
    return toUserView(user);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError(USER_MSG.usernameTaken, 400);
    throw error;
  }
}

const TARGET_SELECT = {
  id: true,
  username: true,
  username_key: true,
  display_name: true,
  group: true,
  email: true,
  role: true,
  status: true,
  quota: true,
} as const;

/** The fields of a user edit the audit trail shows as from → to (role, quota and password have rows of their own). */
const PROFILE_FIELDS = ["username", "display_name", "group", "email"] as const;

async function activeTarget(id: number) {
  const db = await getDb();
  const target = await db.user.findFirst({ where: { id, deleted_at: null }, select: TARGET_SELECT });
  if (!target) throw notFound(USER_MSG.notFound);
  return target;
}

function assertRoleChange(actor: Actor, target: { id: number; role: number }, role: number) {
  if (!isRoot(actor)) throw forbidden(USER_MSG.roleRootOnly);
  if (actor.id === target.id) throw forbidden(USER_MSG.ownRole);
  if (!VALID_ROLES.includes(role) || role < ROLE.user || !canAssignRole(actor, role)) throw forbidden(USER_MSG.roleTooHigh);
}

/**
 * Edits a user. `quota` is the new balance; it is applied as an increment of (quota − the balance
 * the admin saw), never as an overwrite, so quota the relay spends meanwhile stays spent. The
 * change is logged (type 3) with the balances before and after, and audited: one row each for the
 * role, the balance, a new password and the other fields that changed.
 */
export async function updateUser(actor: Actor, input: UserUpdateInput, by: AuditBy): Promise<UserView> {
  const target = await activeTarget(input.id);
  const refusal = editRefusal(actor, target);
  if (refusal) throw forbidden(refusal);
  const data: Prisma.UserUpdateManyMutationInput = {};
  if (input.role !== undefined && input.role !== target.role) {
    assertRoleChange(actor, target, input.role);
    data.role = input.role;
  }
  const db = await getDb();
  if (input.username !== undefined && input.username !== target.username) {
    // Its own key is free to keep: `alice` may become `Alice`.
    if (usernameKey(input.username) !== target.username_key) await assertUsernameFree(db, input.username);
    Object.assign(data, usernameColumns(input.username));
  }
  if (input.display_name !== undefined) data.display_name = input.display_name;
  if (input.group !== undefined) data.group = input.group;
  if (input.email !== undefined) {
    // The same rule as binding: one address, one account.
    await assertEmailFree(input.email, target.id);
    data.email = input.email;
  }
  if (input.password) {
    data.password = await hashPassword(input.password);
    data.auth_version = { increment: 1 };
  }
  // The balance as shown (leases of the relay added back) is what the admin edits.
  const shown = (await visibleQuota(target)).quota;
  const delta = input.quota === undefined ? 0n : BigInt(input.quota) - BigInt(input.original_quota ?? num(shown));
  if (delta !== 0n) data.quota = { increment: delta };

  if (Object.keys(data).length === 0) {
    return toUserView(await visibleQuota(await db.user.findUniqueOrThrow({ where: { id: target.id }, select: USER_PUBLIC_SELECT })));
  }
  const user = await db
    .$transaction(async (tx) => {
      // Conditional on the role the permission check saw.
      const { count } = await tx.user.updateMany({ where: { id: target.id, deleted_at: null, role: target.role }, data });
      if (count === 0) throw new ApiError(USER_MSG.changedMeanwhile, 409);
      const after = await tx.user.findUniqueOrThrow({ where: { id: target.id }, select: USER_PUBLIC_SELECT });
      if (delta !== 0n) {
        const options = await getOptions();
        const [from, to] = [quotaText(shown, options), quotaText(shown + delta, options)];
        await writeLog(tx, {
          user_id: after.id,
          username: after.username,
          type: LOG_TYPE.manage,
          content: `管理员将用户额度从 ${from}修改为 ${to}`,
        });
      }
      return after;
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new ApiError(USER_MSG.usernameTaken, 400);
      throw error;
    });
  await publishInvalidation({ kind: "user", id: user.id });
  // A new password set by an admin ends the user's sessions (their cookies already fail on auth_version).
  if (input.password) await endOtherSessions(user.id, null);
  const profile = changedFields(target, user, PROFILE_FIELDS);
  await writeAudits(
    [
      data.role !== undefined && userAudit(by, user.id, "user.role", { role: { from: target.role, to: user.role } }),
      Object.keys(profile).length > 0 && userAudit(by, user.id, "user.update", profile),
      !!input.password && userAudit(by, user.id, "user.password"),
      delta !== 0n && userAudit(by, user.id, "user.quota", { quota: { from: num(shown), to: num(shown + delta) } }),
    ].filter((entry): entry is AuditEntry => !!entry),
  );
  return toUserView(await visibleQuota(user));
}

/** The delete action: the user and its keys go together (softDeleteUser), not a plain row update. */
const SOFT_DELETE = Symbol("soft delete");
type Change = Prisma.UserUpdateManyMutationInput | typeof SOFT_DELETE;

/** What an action writes; manageRefusal has allowed it. */
function actionChange(action: UserManageInput["action"]): Change {
  switch (action) {
    case "promote":
      return { role: ROLE.admin };
    case "demote":
      return { role: ROLE.user };
    case "disable":
      return { status: USER_STATUS.disabled, auth_version: { increment: 1 } };
    case "enable":
      return { status: USER_STATUS.enabled };
    case "delete":
      return SOFT_DELETE;
  }
}

/** What the audit trail says of a manage action. */
function manageAudit(
  by: AuditBy,
  target: { id: number; username: string; role: number; status: number },
  after: { role: number; status: number },
  action: UserManageInput["action"],
): AuditEntry {
  switch (action) {
    case "promote":
    case "demote":
      return userAudit(by, target.id, "user.role", { role: { from: target.role, to: after.role } });
    case "disable":
    case "enable":
      return userAudit(by, target.id, "user.status", { status: { from: target.status, to: after.status } });
    case "delete":
      return userAudit(by, target.id, "user.delete", { username: target.username });
  }
}

/** Promote, demote, disable, enable or (soft) delete; answers the user's new role and status. */
export async function manageUser(actor: Actor, input: UserManageInput, by: AuditBy): Promise<{ role: number; status: number }> {
  const target = await activeTarget(input.id);
  const refusal = manageRefusal(actor, target, input.action);
  if (refusal) throw new ApiError(refusal.message, refusal.status);
  const data = actionChange(input.action);
  const db = await getDb();
  // Conditional on the role and status the rules were checked against.
  const guard = { role: target.role, status: target.status };
  if (data === SOFT_DELETE) {
    if (!(await softDeleteUser(target.id, guard))) throw new ApiError(USER_MSG.changedMeanwhile, 409);
  } else {
    const { count } = await db.user.updateMany({ where: { id: target.id, deleted_at: null, ...guard }, data });
    if (count === 0) throw new ApiError(USER_MSG.changedMeanwhile, 409);
    await publishInvalidation({ kind: "user", id: target.id });
    // A ban ends the user's sessions (their cookies already fail on auth_version).
    if (input.action === "disable") await endOtherSessions(target.id, null);
  }
  const after = await db.user.findUniqueOrThrow({ where: { id: target.id }, select: { role: true, status: true } });
  await writeAudit(manageAudit(by, target, after, input.action));
  return { role: after.role, status: after.status };
}

/**
 * DELETE /api/user/{id}: removes the user row and its tokens for good (logs keep their copies of
 * the names). Soft-deleted users may be purged too.
 */
export async function deleteUser(actor: Actor, id: number, by: AuditBy): Promise<void> {
  const db = await getDb();
  const target = await db.user.findUnique({ where: { id }, select: TARGET_SELECT });
  if (!target) throw notFound(USER_MSG.notFound);
  if (isRoot(target)) throw forbidden(USER_MSG.rootDelete);
  if (!canManageUser(actor, target)) throw forbidden(USER_MSG.outranked);
  const tokens = await db.$transaction(async (tx) => {
    const rows = await tx.token.findMany({ where: { user_id: id }, select: { id: true, key_hash: true } });
    await tx.token.deleteMany({ where: { user_id: id } });
    const { count } = await tx.user.deleteMany({ where: { id, role: target.role } });
    if (count === 0) throw new ApiError(USER_MSG.changedMeanwhile, 409);
    return rows;
  });
  await Promise.all([
    ...tokens.map((t) => publishInvalidation({ kind: "token", keyHash: t.key_hash, id: t.id })),
    publishInvalidation({ kind: "user", id }),
  ]);
  await writeAudit(userAudit(by, id, "user.purge", { username: target.username }));
}
