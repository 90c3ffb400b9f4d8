import { BANNED_MESSAGE } from "@/lib/auth/authenticate";
import { isActiveUser } from "@/lib/auth/roles";
import type { SignInMethod } from "@/lib/auth/sessions";
import { completeSignIn, signedInResponse } from "@/lib/auth/sign-in";
import { visibleQuota } from "@/lib/billing/visible";
import { getDb } from "@/lib/db";
import { forbidden } from "@/lib/errors";
import type { BindingColumn } from "@/lib/users/create";
import { toUserView, USER_PUBLIC_SELECT, type UserView } from "@/lib/users/view";

export const PROVIDER_ACCOUNT_MSG = {
  /** new-api's word for an account that was deleted (it keeps its bindings). */
  deleted: "用户已注销",
} as const;

/** An account about to sign in: what the console stores, and the auth_version its session is issued under. */
export type SignInAccount = UserView & { auth_version: number };

/**
 * The account `value` is bound to in `column`, or null when none is. A disabled account is refused
 * (as a password sign-in refuses it), and so is a deleted one, which still holds the id: the third
 * party's account stays with it, as in new-api, rather than silently starting a new account.
 */
export async function boundAccount(column: BindingColumn, value: string): Promise<SignInAccount | null> {
  if (!value) return null;
  const db = await getDb();
  const rows = await db.user.findMany({
    where: { [column]: value },
    select: { ...USER_PUBLIC_SELECT, auth_version: true },
    orderBy: { id: "asc" },
  });
  const live = rows.find((row) => row.deleted_at === null);
  if (!live) {
    if (rows.length > 0) throw forbidden(PROVIDER_ACCOUNT_MSG.deleted);
    return null;
  }
  if (!isActiveUser(live)) throw forbidden(BANNED_MESSAGE);
  const { auth_version, ...row } = live;
  return { ...toUserView(await visibleQuota(row)), auth_version };
}

/**
 * The answer of a third-party sign-in (GET /api/oauth/wechat, /api/oauth/telegram/login), shaped as
 * POST /api/user/login's: the user and the session cookie, or, when the account has two-factor on,
 * `{require_2fa: true}` and the pending cookie (the login page's code step comes next).
 */
export async function signInAnswer(req: Request, account: SignInAccount, method: SignInMethod): Promise<Response> {
  const { auth_version, ...user } = account;
  return signedInResponse(user, await completeSignIn(req, { id: user.id, username: user.username, role: user.role, auth_version }, method));
}
