// Password sign-in and self-registration.
import { ApiError, forbidden } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { enforceRateLimit, rateLimitStore } from "@/lib/auth/rate-limit";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { isActiveUser } from "@/lib/auth/roles";
import { getOptions } from "@/lib/options";
import { LOG_TYPE, writeLog } from "@/lib/logs/write";
import { checkVerificationCode } from "@/lib/auth/verification";
import { requireTurnstile } from "@/lib/auth/turnstile";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";
import { visibleQuota } from "@/lib/billing/visible";
import { quotaText } from "@/lib/billing/quota-text";
import { newAffCode } from "@/lib/users/aff";
import type { LoginInput, RegisterInput } from "@/lib/users/schemas";

export const LOGIN_FAILED = "用户名或密码错误，或用户已被封禁";

export const TOO_MANY_FAILURES = "该账户登录失败次数过多，请稍后再试";

const limits = () => ({ limit: env.CRITICAL_RATE_LIMIT, window: env.CRITICAL_RATE_LIMIT_DURATION });

// Wrong passwords per account name, LOGIN_FAILURE_LIMIT per window, from any address: shared by
// sign-in and the password change (which needs the current password), so neither is a way to
// guess it faster.
const failureKey = (name: string) => `login:fail:${name.toLowerCase()}`;

/** Throws the 429 envelope error while `name` has too many recent wrong passwords. */
export async function refuseIfLocked(name: string): Promise<void> {
  if ((await rateLimitStore().count(failureKey(name), env.CRITICAL_RATE_LIMIT_DURATION)) >= env.LOGIN_FAILURE_LIMIT) {
    throw new ApiError(TOO_MANY_FAILURES, 429);
  }
}

export async function notePasswordFailure(name: string): Promise<void> {
  await rateLimitStore().hit(failureKey(name), Number.MAX_SAFE_INTEGER, env.CRITICAL_RATE_LIMIT_DURATION);
}

export async function clearPasswordFailures(name: string): Promise<void> {
  await rateLimitStore().reset(failureKey(name));
}

/**
 * Checks the Turnstile token (when Turnstile is on), then a username (or e-mail) and password.
 * Every sign-in path calls this. Unknown users, wrong passwords and banned users all take one
 * bcrypt comparison and give one message.
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
  await refuseIfLocked(input.username);

  const db = await getDb();
  const byName = { username: input.username, deleted_at: null };
  const user =
    (await db.user.findFirst({ where: byName, select: { ...USER_PUBLIC_SELECT, password: true, auth_version: true } })) ??
    (input.username.includes("@")
      ? await db.user.findFirst({
          where: { email: input.username, deleted_at: null },
          select: { ...USER_PUBLIC_SELECT, password: true, auth_version: true },
        })
      : null);
  const passwordOk = await verifyPassword(input.password, user?.password);
  if (!user || !passwordOk || !isActiveUser(user)) {
    await notePasswordFailure(input.username);
    throw new ApiError(LOGIN_FAILED, 400);
  }
  await clearPasswordFailures(input.username);
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
  // Soft-deleted accounts keep their names: a name is never handed to someone else.
  const taken = await db.user.findFirst({
    where: { OR: [{ username: input.username }, ...(email ? [{ email }] : [])] },
    select: { id: true },
  });
  if (taken) throw new ApiError("用户名已存在，或已注销", 400);

  const inviter = input.aff_code
    ? await db.user.findFirst({ where: { aff_code: input.aff_code, deleted_at: null }, select: { id: true, username: true } })
    : null;
  const password = await hashPassword(input.password);
  const startQuota = BigInt(options.QuotaForNewUser) + (inviter ? BigInt(options.QuotaForInvitee) : 0n);

  const user = await createWithUniqueAffCode(db, {
    username: input.username,
    display_name: input.username,
    password,
    email,
    quota: startQuota,
    inviter_id: inviter?.id ?? 0,
    created_time: nowSeconds(),
  });

  if (options.QuotaForNewUser > 0) {
    await writeLog(db, {
      user_id: user.id,
      username: user.username,
      type: LOG_TYPE.system,
      content: `新用户注册赠送 ${quotaText(options.QuotaForNewUser, options)}`,
    });
  }
  if (inviter) {
    if (options.QuotaForInvitee > 0) {
      await writeLog(db, {
        user_id: user.id,
        username: user.username,
        type: LOG_TYPE.system,
        content: `使用邀请码赠送 ${quotaText(options.QuotaForInvitee, options)}`,
      });
    }
    // The inviter's reward waits in aff_quota (moved to the balance by lib/users/aff.ts). One
    // UPDATE of increments, so concurrent registrations with one code all count; an inviter
    // deleted meanwhile is skipped.
    const reward = BigInt(options.QuotaForInviter);
    const { count } = await db.user.updateMany({
      where: { id: inviter.id, deleted_at: null },
      data: { aff_count: { increment: 1 }, aff_quota: { increment: reward }, aff_history_quota: { increment: reward } },
    });
    if (count === 1 && reward > 0n) {
      await writeLog(db, {
        user_id: inviter.id,
        username: inviter.username,
        type: LOG_TYPE.system,
        content: `邀请用户赠送 ${quotaText(reward, options)}`,
      });
    }
  }
  return { id: user.id };
}

async function createWithUniqueAffCode(
  db: Awaited<ReturnType<typeof getDb>>,
  data: {
    username: string;
    display_name: string;
    password: string;
    email: string;
    quota: bigint;
    inviter_id: number;
    created_time: number;
  },
) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.user.create({ data: { ...data, aff_code: newAffCode() }, select: { id: true, username: true } });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "P2002" || attempt >= 5) {
        if (code === "P2002") throw new ApiError("用户名已存在，或已注销", 400);
        throw error;
      }
      // P2002 on username means a concurrent registration took the name.
      if (await db.user.findFirst({ where: { username: data.username }, select: { id: true } })) {
        throw new ApiError("用户名已存在，或已注销", 400);
      }
    }
  }
}
