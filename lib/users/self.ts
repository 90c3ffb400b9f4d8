// What a signed-in user can do to their own account.
import { randomBytes } from "node:crypto";
import { ApiError, forbidden, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { hashAccessToken } from "@/lib/auth/authenticate";
import { isRoot } from "@/lib/auth/roles";
import { getOptions } from "@/lib/options";
import { invalidateRootDefaultPassword } from "@/lib/status/site-status";
import { usableGroups } from "@/lib/options/groups";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";
import { visibleQuota } from "@/lib/billing/visible";
import { withPrice } from "@/lib/billing/pricing";
import { softDeleteUser } from "@/lib/users/soft-delete";
import type { UpdateSelfInput } from "@/lib/users/schemas";
import { clearPasswordFailures, notePasswordFailure, refuseIfLocked } from "@/lib/users/auth";
import { USERNAME_MSG, usernameColumns, usernameKey } from "@/lib/users/username";
import { assertUsernameFree } from "@/lib/users/username-keys";

export async function getSelf(id: number): Promise<UserView> {
  const db = await getDb();
  const user = await db.user.findFirst({ where: { id, deleted_at: null }, select: USER_PUBLIC_SELECT });
  if (!user) throw notFound("用户不存在");
  return toUserView(await visibleQuota(user));
}

/**
 * Updates the caller's username, display name or password. A password change needs the current
 * password and ends every other session (auth_version is bumped; the caller gets a new cookie).
 * An account without a password (signed up through a third party) sets its first one without.
 */
export async function updateSelf(id: number, input: UpdateSelfInput, ip: string): Promise<{ user: UserView; authVersion: number | null }> {
  const db = await getDb();
  const current = await db.user.findFirst({
    where: { id, deleted_at: null },
    select: { password: true, username: true, username_key: true, auth_version: true },
  });
  if (!current) throw notFound("用户不存在");
  const data: { username?: string; username_key?: string; display_name?: string; password?: string; auth_version?: { increment: number } } =
    {};
  if (input.username !== undefined && input.username !== current.username) {
    // Its own key is free to keep: `alice` may become `Alice`.
    if (usernameKey(input.username) !== current.username_key) await assertUsernameFree(db, input.username);
    Object.assign(data, usernameColumns(input.username));
  }
  if (input.display_name !== undefined) data.display_name = input.display_name;
  if (input.password) {
    if (current.password) {
      // The same per-account limit as sign-in: a stolen session cannot guess the password faster.
      await refuseIfLocked({ accountId: id, ip });
      if (!(await verifyPassword(input.original_password ?? "", current.password))) {
        await notePasswordFailure({ accountId: id, ip });
        throw new ApiError("原密码错误", 400);
      }
      await clearPasswordFailures(id);
    }
    data.password = await hashPassword(input.password);
    data.auth_version = { increment: 1 };
  }
  if (Object.keys(data).length === 0) return { user: await getSelf(id), authVersion: null };
  const updated = await db.user
    .update({ where: { id }, data, select: { ...USER_PUBLIC_SELECT, auth_version: true } })
    .catch((error: unknown) => {
      // The unique indexes decide a race for the same name.
      if ((error as { code?: string } | null)?.code === "P2002") throw new ApiError(USERNAME_MSG.taken, 400);
      throw error;
    });
  if (data.password) invalidateRootDefaultPassword();
  return { user: toUserView(await visibleQuota(updated)), authVersion: data.auth_version ? updated.auth_version : null };
}

/** Whether the account has a password (one signed up through a third party has none until it sets one). */
export async function selfHasPassword(id: number): Promise<boolean> {
  const db = await getDb();
  const user = await db.user.findFirst({ where: { id, deleted_at: null }, select: { password: true } });
  return !!user?.password;
}

/** Soft-deletes the caller's account with its keys (lib/users/soft-delete.ts). Root cannot. */
export async function deleteSelf(caller: { id: number; role: number }): Promise<void> {
  if (isRoot(caller)) throw forbidden("不能删除超级管理员账户");
  if (!(await softDeleteUser(caller.id))) throw notFound("用户不存在");
}

/** Issues a new system access token; only its hash is stored, so it is shown this once. */
export async function createAccessToken(id: number): Promise<string> {
  const token = randomBytes(24).toString("base64url");
  const db = await getDb();
  await db.user.update({ where: { id }, data: { access_token_hash: hashAccessToken(token) } });
  return token;
}

/**
 * Models the user's group can reach through enabled channels and the relay can bill: a model
 * without a price is refused (倍率或价格未配置), so the token's model limits, the playground and
 * the settings' model list do not offer it.
 */
export async function listUserModels(group: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.ability.findMany({
    where: { group, enabled: true },
    select: { model: true },
    distinct: ["model"],
    orderBy: { model: "asc" },
  });
  return withPrice(rows.map((r) => r.model));
}

/** The groups a user may choose for a token, as group → label (UserUsableGroups plus their own). */
export async function listSelfGroups(userGroup: string): Promise<Record<string, string>> {
  return usableGroups(userGroup, await getOptions());
}
