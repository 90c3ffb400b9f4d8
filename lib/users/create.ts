// Creating an account that signs itself up: by password (registerUser), or by a third-party
// account (GitHub, LinuxDO, OIDC, WeChat). One place gives the start quota, the invitee reward
// and the inviter's reward (waiting in aff_quota, lib/users/aff.ts), each with its log line.
import { randomBytes } from "node:crypto";
import { ApiError, forbidden } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { getOptions } from "@/lib/options";
import { writeLog } from "@/lib/logs/account-log";
import { LOG_TYPE } from "@/lib/logs/write";
import { quotaText } from "@/lib/billing/quota-text";
import { newAffCode } from "@/lib/users/aff";
import { USERNAME_MAX, USERNAME_MSG, usernameColumns } from "@/lib/users/username";
import { assertUsernameFree } from "@/lib/users/username-keys";

/** The columns that hold a third-party account's id. */
export type BindingColumn = "github_id" | "linux_do_id" | "oidc_id" | "wechat_id" | "telegram_id";

export type NewUserInput = {
  username: string;
  display_name: string;
  /** A bcrypt hash, or "" for an account that signs in only through a third party or a passkey. */
  password: string;
  email?: string;
  /** The inviter's aff code; an unknown code is ignored. */
  aff_code?: string | null;
  /** The third-party account the new user is created with. */
  binding?: { column: BindingColumn; value: string };
};

type Db = Awaited<ReturnType<typeof getDb>>;

/**
 * Creates the user with the start quota (QuotaForNewUser, plus QuotaForInvitee when invited),
 * writes their log lines and credits the inviter. The username must be free (assertUsernameFree);
 * a concurrent sign-up that takes it first makes this throw USERNAME_MSG.taken.
 */
export async function createUserWithRewards(input: NewUserInput): Promise<{ id: number; username: string }> {
  const db = await getDb();
  const options = await getOptions();
  const inviter = input.aff_code
    ? await db.user.findFirst({ where: { aff_code: input.aff_code, deleted_at: null }, select: { id: true, username: true } })
    : null;
  const startQuota = BigInt(options.QuotaForNewUser) + (inviter ? BigInt(options.QuotaForInvitee) : 0n);

  const user = await createWithUniqueAffCode(db, {
    ...usernameColumns(input.username),
    display_name: input.display_name,
    password: input.password,
    email: input.email ?? "",
    quota: startQuota,
    inviter_id: inviter?.id ?? 0,
    created_time: nowSeconds(),
    ...(input.binding ? { [input.binding.column]: input.binding.value } : {}),
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
    // One UPDATE of increments, so concurrent registrations with one code all count; an inviter
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
  return user;
}

/**
 * Signs up a new user for a third-party account: `<prefix>_<random>` as the name (free, within
 * USERNAME_MAX), no password, the third party's display name. Refused when registration is off.
 */
export async function createProviderUser(input: {
  prefix: string;
  displayName: string;
  aff_code?: string | null;
  binding: { column: BindingColumn; value: string };
}): Promise<{ id: number; username: string }> {
  const options = await getOptions();
  if (!options.RegisterEnabled) throw forbidden("管理员关闭了新用户注册");
  const db = await getDb();
  for (let attempt = 0; ; attempt++) {
    const username = `${input.prefix}_${randomBytes(4).toString("hex")}`.slice(0, USERNAME_MAX);
    try {
      await assertUsernameFree(db, username);
      return await createUserWithRewards({
        username,
        display_name: (input.displayName.trim() || username).slice(0, 20),
        password: "",
        aff_code: input.aff_code,
        binding: input.binding,
      });
    } catch (error) {
      // A name drawn twice (or taken meanwhile): draw again, a few times.
      if (error instanceof ApiError && error.message === USERNAME_MSG.taken && attempt < 5) continue;
      throw error;
    }
  }
}

type CreateData = {
  username: string;
  username_key: string;
  display_name: string;
  password: string;
  email: string;
  quota: bigint;
  inviter_id: number;
  created_time: number;
} & Partial<Record<BindingColumn, string>>;

async function createWithUniqueAffCode(db: Db, data: CreateData) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.user.create({ data: { ...data, aff_code: newAffCode() }, select: { id: true, username: true } });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "P2002" || attempt >= 5) {
        if (code === "P2002") throw new ApiError(USERNAME_MSG.taken, 400);
        throw error;
      }
      // P2002 on username or username_key means a concurrent registration took the name.
      await assertUsernameFree(db, data.username);
    }
  }
}
