// Everything a user starts by e-mail (spec §7, inventory §6.4): a verification code (registration
// and binding), the password-reset mail and its confirmation, and binding an address to an account.
// Mails go through lib/mail/mailer.ts; codes and tokens through lib/auth/verification.ts (shared by
// every instance, taken once).
import { endOtherSessions } from "@/lib/auth/sessions";
import { randomBytes } from "node:crypto";
import { ApiError } from "@/lib/errors";
import { env } from "@/lib/env";
import { getDb } from "@/lib/db";
import { hashPassword } from "@/lib/auth/password";
import { requireTurnstile } from "@/lib/auth/turnstile";
import {
  checkVerificationCode,
  newResetToken,
  newVerificationCode,
  storeVerificationCode,
  VERIFICATION_TTL_SECONDS,
} from "@/lib/auth/verification";
import { sharedCache } from "@/lib/cache/shared";
import { sendMail } from "@/lib/mail/mailer";
import { getOptions, type OptionValues } from "@/lib/options";
import { clearPasswordFailures } from "@/lib/users/auth";
import { assertEmailFree, EMAIL_TAKEN_MSG } from "@/lib/users/email-owner";

export const EMAIL_MSG = {
  domainNotAllowed: "管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中",
  aliasNotAllowed: "管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。",
  taken: EMAIL_TAKEN_MSG,
  notRegistered: "该邮箱地址未注册",
  resetInvalid: "重置链接非法或已过期",
  codeInvalid: "验证码错误或已过期！",
  tooSoon: "发送过于频繁，请稍后再试",
  bound: "邮箱账户绑定成功！",
} as const;

/** The resend cooldown (spec §9: 30 s), enforced per address. */
export const RESEND_SECONDS = 30;

/** Mails per client address per hour, whatever the recipients. */
const MAILS_PER_IP_HOUR = 10;

/** The domain whitelist and the alias rule; throws their message. */
export function checkEmailRules(
  email: string,
  o: Pick<OptionValues, "EmailDomainRestrictionEnabled" | "EmailDomainWhitelist" | "EmailAliasRestrictionEnabled">,
) {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  if (o.EmailDomainRestrictionEnabled) {
    const allowed = o.EmailDomainWhitelist.split(",").map((d) => d.trim().toLowerCase());
    if (!allowed.includes(domain)) throw new ApiError(EMAIL_MSG.domainNotAllowed, 400);
  }
  if (o.EmailAliasRestrictionEnabled && (local.includes("+") || local.includes("."))) throw new ApiError(EMAIL_MSG.aliasNotAllowed, 400);
}

/**
 * The sensitive-call limit per client address (CRITICAL_RATE_LIMIT per window), checked before any
 * lookup, so asking whether addresses have accounts costs the same budget as signing in.
 */
async function limitCalls(kind: string, ip: string) {
  if ((await sharedCache().incr(`critical:${kind}:${ip}`, env.CRITICAL_RATE_LIMIT_DURATION)) > env.CRITICAL_RATE_LIMIT) {
    throw new ApiError("请求次数过多，请稍后再试！", 429);
  }
}

/**
 * One mail per address per RESEND_SECONDS and MAILS_PER_IP_HOUR per client, counted in the shared
 * cache so every instance sees the same counts.
 */
async function limitMail(kind: string, email: string, ip: string) {
  const cache = sharedCache();
  if (!(await cache.set(`mail:${kind}:${email.toLowerCase()}`, "1", RESEND_SECONDS, true))) throw new ApiError(EMAIL_MSG.tooSoon, 429);
  if ((await cache.incr(`mail:ip:${ip}`, 3600)) > MAILS_PER_IP_HOUR) throw new ApiError(EMAIL_MSG.tooSoon, 429);
}

/** Lets the address send again at once (its mail was not sent). */
const releaseMailLimit = (kind: string, email: string) => sharedCache().del(`mail:${kind}:${email.toLowerCase()}`);

/** GET /api/verification: mails a 6-character code for registering or binding `email`. */
export async function sendVerificationEmail(email: string, ip: string, turnstile: string | null): Promise<void> {
  await requireTurnstile(turnstile, ip);
  await limitCalls("verify", ip);
  const o = await getOptions();
  checkEmailRules(email, o);
  await assertEmailFree(email);
  await limitMail("verify", email, ip);
  const code = newVerificationCode();
  await storeVerificationCode("email", email, code);
  try {
    await sendMail({
      to: email,
      subject: `${o.SystemName}邮箱验证邮件`,
      html: `<p>您好，你正在进行${escapeHtml(o.SystemName)}邮箱验证。</p><p>您的验证码为: <strong>${code}</strong></p><p>验证码 ${VERIFICATION_TTL_SECONDS / 60} 分钟内有效，如果不是本人操作，请忽略。</p>`,
    });
  } catch (error) {
    await releaseMailLimit("verify", email);
    throw error;
  }
}

/** The confirm page's address, where the reset mail's link leads. */
export const RESET_CONFIRM_PATH = "/user/reset";

/** GET /api/reset_password: mails a link to the confirm page with a single-use token. */
export async function sendPasswordResetEmail(email: string, ip: string, turnstile: string | null, origin: string): Promise<void> {
  await requireTurnstile(turnstile, ip);
  await limitCalls("reset", ip);
  const o = await getOptions();
  const db = await getDb();
  const user = await db.user.findFirst({ where: { email, deleted_at: null }, select: { id: true } });
  if (!user) throw new ApiError(EMAIL_MSG.notRegistered, 400);
  await limitMail("reset", email, ip);
  const token = newResetToken();
  await storeVerificationCode("reset", email, token);
  const base = (o.ServerAddress || origin).replace(/\/+$/, "");
  const link = `${base}${RESET_CONFIRM_PATH}?email=${encodeURIComponent(email)}&token=${token}`;
  try {
    await sendMail({
      to: email,
      subject: `${o.SystemName}密码重置`,
      html: `<p>您好，你正在进行${escapeHtml(o.SystemName)}密码重置。</p><p>点击 <a href="${escapeHtml(link)}">此处</a> 进行密码重置。</p><p>如果链接无法点击，请尝试点击下面的链接或将其复制到浏览器中打开：<br> ${escapeHtml(link)} </p><p>重置链接 ${VERIFICATION_TTL_SECONDS / 60} 分钟内有效，如果不是本人操作，请忽略。</p>`,
    });
  } catch (error) {
    await releaseMailLimit("reset", email);
    throw error;
  }
}

/** A new password of 12 hex characters, as the reference gives. */
const newPassword = () => randomBytes(6).toString("hex");

/**
 * POST /api/user/reset: takes the token (once) and sets a new random password, returned to the
 * caller. Every session of the account ends (auth_version), and its wrong-password lock is lifted.
 */
export async function confirmPasswordReset(email: string, token: string): Promise<string> {
  if (!(await checkVerificationCode("reset", email, token))) throw new ApiError(EMAIL_MSG.resetInvalid, 400);
  const db = await getDb();
  const user = await db.user.findFirst({ where: { email, deleted_at: null }, select: { id: true, username: true } });
  if (!user) throw new ApiError(EMAIL_MSG.resetInvalid, 400);
  const password = newPassword();
  await db.user.update({ where: { id: user.id }, data: { password: await hashPassword(password), auth_version: { increment: 1 } } });
  await clearPasswordFailures(user.id);
  await endOtherSessions(user.id, null);
  return password;
}

/** GET /api/oauth/email/bind: binds `email` to the caller's account with a code mailed to it. */
export async function bindEmail(userId: number, email: string, code: string): Promise<void> {
  const o = await getOptions();
  checkEmailRules(email, o);
  if (!(await checkVerificationCode("email", email, code))) throw new ApiError(EMAIL_MSG.codeInvalid, 400);
  await assertEmailFree(email, userId);
  const db = await getDb();
  await db.user.update({ where: { id: userId }, data: { email } });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
