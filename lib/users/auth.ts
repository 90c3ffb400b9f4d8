// Password sign-in and self-registration.
import { ApiError, forbidden } from "@/lib/errors";
import { env } from "@/lib/env";
import { getDb } from "@/lib/db";
import { getDirectDb } from "@/lib/db/direct";
import { int } from "@/lib/db/num";
import { enforceRateLimit, rateLimitStore } from "@/lib/auth/rate-limit";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { isActiveUser } from "@/lib/auth/roles";
import { getOptions } from "@/lib/options";
import { checkVerificationCode } from "@/lib/auth/verification";
import { requireTurnstile } from "@/lib/auth/turnstile";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";
import { visibleQuota } from "@/lib/billing/visible";
import { createUserWithRewards } from "@/lib/users/create";
import type { LoginInput, RegisterInput } from "@/lib/users/schemas";
import { usernameKey } from "@/lib/users/username";
import { assertUsernameFree } from "@/lib/users/username-keys";
import { assertEmailFree } from "@/lib/users/email-owner";

export const LOGIN_FAILED = "用户名或密码错误，或用户已被封禁";

export const TOO_MANY_FAILURES = "该账户登录失败次数过多，请稍后再试";

const limits = () => ({ limit: env.CRITICAL_RATE_LIMIT, window: env.CRITICAL_RATE_LIMIT_DURATION });

/**
 * Whose wrong password it is. Sign-in and the password change share the count, so neither is a
 * way to guess faster than the other.
 * - accountId: counted per account, from any address, LOGIN_FAILURE_LIMIT per window. By id, so
 *   renaming the account does not reset it, and its name and its e-mail address are one budget.
 * - typed: for a sign-in that names no account, what was typed stands in for the account, so an
 *   unknown name locks after as many wrong guesses as a real one and the lock does not tell
 *   whether an account exists.
 * - ip: every wrong password also counts for the client address, across accounts, up to
 *   ADDRESS_FAILURE_FACTOR × LOGIN_FAILURE_LIMIT: one address cannot try five passwords on each
 *   of many accounts (or names). A success clears the account's count, never the address's.
 */
export type PasswordAttempt = { accountId: number | null; typed?: string; ip: string };

export const ADDRESS_FAILURE_FACTOR = 2;

const accountFailureKey = (a: PasswordAttempt) =>
  a.accountId !== null ? `login:fail:user:${a.accountId}` : `login:fail:name:${usernameKey(a.typed ?? "")}`;
const addressFailureKey = (ip: string) => `login:fail:ip:${ip}`;

/** Throws the 429 envelope error while the account (or the address) has too many recent wrong passwords. */
export async function refuseIfLocked(attempt: PasswordAttempt): Promise<void> {
  const store = rateLimitStore();
  const window = env.CRITICAL_RATE_LIMIT_DURATION;
  const [account, address] = await Promise.all([
    store.count(accountFailureKey(attempt), window),
    store.count(addressFailureKey(attempt.ip), window),
  ]);
  if (account >= env.LOGIN_FAILURE_LIMIT || address >= env.LOGIN_FAILURE_LIMIT * ADDRESS_FAILURE_FACTOR) {
    throw new ApiError(TOO_MANY_FAILURES, 429);
  }
}

export async function notePasswordFailure(attempt: PasswordAttempt): Promise<void> {
  const store = rateLimitStore();
  const window = env.CRITICAL_RATE_LIMIT_DURATION;
  await Promise.all([
    store.hit(accountFailureKey(attempt), Number.MAX_SAFE_INTEGER, window),
    store.hit(addressFailureKey(attempt.ip), Number.MAX_SAFE_INTEGER, window),
  ]);
}

/** After the right password (or a reset): the account's count starts again. */
export async function clearPasswordFailures(accountId: number): Promise<void> {
  await rateLimitStore().reset(accountFailureKey({ accountId, ip: "" }));
}

const SIGN_IN_SELECT = { ...USER_PUBLIC_SELECT, password: true, auth_version: true } as const;

/**
 * The account a sign-in names: text with `@` is an e-mail address (compared ignoring case) and
 * never a username (usernames cannot contain `@`); other text is a username, NFKC-normalized as
 * names are stored. One lookup either way, whether or not the account exists.
 */
async function findSignInAccount(typed: string) {
  const db = await getDb();
  if (!typed.includes("@")) {
    return db.user.findFirst({ where: { username: typed.normalize("NFKC"), deleted_at: null }, select: SIGN_IN_SELECT });
  }
  const direct = await getDirectDb();
  const rows = await direct.query("SELECT id FROM users WHERE LOWER(email) = LOWER(?) AND deleted_at IS NULL LIMIT 2", [typed]);
  // An address two accounts share (bound before that was refused) names neither of them. The
  // second lookup runs either way, so an unknown address takes as long as a known one.
  const id = rows.length === 1 ? int(rows[0]!.id) : 0;
  return db.user.findFirst({ where: { id, deleted_at: null }, select: SIGN_IN_SELECT });
}

/**
 * Checks the Turnstile token (when Turnstile is on), then a username (or e-mail) and password.
 * Every sign-in path calls this. Unknown users, wrong passwords and banned users all take one
 * lookup and one bcrypt comparison and give one message.
 */
export async function loginWithPassword(
  input: LoginInput,
  ip: string,
  turnstile: string | null | undefined,
): Promise<UserView & { auth_version: number }> {
  await requireTurnstile(turnstile, ip);
  const options = await getOptions();
  if (!options.PasswordLoginEnabled) throw forbidden("管理员关闭了密码登录");
  const { limit, window } = limits();
  await enforceRateLimit(`login:ip:${ip}`, limit, window);

  const user = await findSignInAccount(input.username);
  const attempt: PasswordAttempt = { accountId: user?.id ?? null, typed: input.username, ip };
  await refuseIfLocked(attempt);
  const passwordOk = await verifyPassword(input.password, user?.password);
  if (!user || !passwordOk || !isActiveUser(user)) {
    await notePasswordFailure(attempt);
    throw new ApiError(LOGIN_FAILED, 400);
  }
  await clearPasswordFailures(user.id);
  return { ...toUserView(await visibleQuota(user)), auth_version: user.auth_version };
}

export async function registerUser(input: RegisterInput, ip: string, turnstile: string | null): Promise<{ id: number }> {
  const options = await getOptions();
  if (!options.RegisterEnabled) throw forbidden("管理员关闭了新用户注册");
  if (!options.PasswordRegisterEnabled) throw forbidden("管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册");
  await requireTurnstile(turnstile, ip);
  const { limit, window } = limits();
  await enforceRateLimit(`register:ip:${ip}`, limit, window);

  const db = await getDb();
  let email = "";
  if (options.EmailVerificationEnabled) {
    if (!input.email || !input.verification_code) throw new ApiError("管理员开启了邮箱验证，请输入邮箱地址和验证码", 400);
    if (!(await checkVerificationCode("email", input.email, input.verification_code))) {
      throw new ApiError("验证码错误或已过期", 400);
    }
    email = input.email;
  }
  await assertUsernameFree(db, input.username);
  await assertEmailFree(email);

  const password = await hashPassword(input.password);
  return createUserWithRewards({ username: input.username, display_name: input.username, password, email, aff_code: input.aff_code });
}
