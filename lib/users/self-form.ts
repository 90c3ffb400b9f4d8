// Rules of the personal settings tab (the admin user drawers have theirs in lib/users/form.ts) (spec §2 Settings, §5 Users), pure and browser-safe so the
// console and the server share them and they are unit-tested: the invite link, the invite-reward
// transfer amount, the change-password form and the account-deletion confirmation.
import { z } from "zod";
import { quotaText } from "@/lib/billing/quota-text";
import { ROLE } from "@/lib/auth/roles";
import { newPasswordField, PASSWORD_TOO_LONG, PASSWORD_TOO_SHORT } from "@/lib/ui/auth-schemas";

export const AFF_MSG = {
  /** new-api's text; `min` is one quota unit as log text, e.g. "＄1.000000 额度". */
  transferTooSmall: (min: string) => `转移额度最小为${min}！`,
  insufficient: "邀请额度不足！",
  transferred: "划转成功",
  userNotFound: "用户不存在",
  codeFailed: "生成邀请码失败，请重试",
} as const;

export const SETTINGS_MSG = {
  originalRequired: "请输入原密码",
  passwordTooShort: PASSWORD_TOO_SHORT,
  passwordTooLong: PASSWORD_TOO_LONG,
  passwordsDiffer: "两次输入的密码不一致！",
  passwordChanged: "密码修改成功！",
  passwordSet: "密码设置成功！",
  deleteMismatch: "请输入你的账户名以确认删除！",
  deleted: "账户已删除！",
  tokenCreated: "系统访问令牌已生成",
} as const;

/** How quota is entered and read: dollars while the site shows currency, else quota units. */
export type QuotaEntry = { quotaPerUnit: number; inCurrency: boolean };

/** The link a user hands out: the configured server address, else the address the console runs on. */
export function inviteLink(serverAddress: string, origin: string, code: string): string {
  const base = (serverAddress.trim() || origin).replace(/\/+$/, "");
  return `${base}/register?aff=${encodeURIComponent(code)}`;
}

/** A transfer below one quota unit (QuotaPerUnit) is refused, by the dialog and by the server. */
export function isBelowTransferMinimum(quota: number, quotaPerUnit: number): boolean {
  return !Number.isSafeInteger(quota) || quota < quotaPerUnit;
}

/** The amount as typed (dollars or units, see QuotaEntry) in quota units; null when it is not a number. */
export function entryToQuota(amount: number | string, entry: QuotaEntry): number | null {
  const n = typeof amount === "number" ? amount : Number(String(amount).trim());
  if (String(amount).trim() === "" || !Number.isFinite(n)) return null;
  return entry.inCurrency ? Math.round(n * entry.quotaPerUnit) : Math.trunc(n);
}

/** What the dialog offers first: all of the pending reward, rounded down to what can be typed. */
export function defaultTransferAmount(affQuota: number, entry: QuotaEntry): number {
  if (affQuota <= 0) return 0;
  if (!entry.inCurrency) return affQuota;
  return Math.floor((affQuota / entry.quotaPerUnit) * 100) / 100;
}

/** The quota to send to POST /api/user/aff_transfer, or the message that stops it. */
export function checkTransfer(
  amount: number | string,
  affQuota: number,
  entry: QuotaEntry,
): { ok: true; quota: number } | { ok: false; message: string } {
  const quota = entryToQuota(amount, entry);
  const min = quotaText(Math.trunc(entry.quotaPerUnit), { QuotaPerUnit: entry.quotaPerUnit, DisplayInCurrencyEnabled: entry.inCurrency });
  if (quota === null || isBelowTransferMinimum(quota, entry.quotaPerUnit)) return { ok: false, message: AFF_MSG.transferTooSmall(min) };
  if (quota > affQuota) return { ok: false, message: AFF_MSG.insufficient };
  return { ok: true, quota };
}

/** The change-password form: current password, a new one of 8–20 characters, typed twice. */
export const changePasswordSchema = z
  .object({
    original_password: z.string().min(1, SETTINGS_MSG.originalRequired),
    password: newPasswordField,
    password2: z.string(),
  })
  .refine((v) => v.password === v.password2, { message: SETTINGS_MSG.passwordsDiffer, path: ["password2"] });

export type ChangePasswordValues = z.input<typeof changePasswordSchema>;

/** An account without a password (signed up through a third party) sets its first one: no current password. */
export const setPasswordSchema = z
  .object({ original_password: z.string(), password: newPasswordField, password2: z.string() })
  .refine((v) => v.password === v.password2, { message: SETTINGS_MSG.passwordsDiffer, path: ["password2"] });

/** The body of PUT /api/user/self for a password change (the confirmation stays in the browser). */
export const changePasswordBody = (v: ChangePasswordValues) => ({ original_password: v.original_password, password: v.password });

/** Deleting one's account needs one's own username typed exactly (surrounding blanks aside). */
export const deletionConfirmed = (typed: string, username: string) => typed.trim() === username;

/** The badge on the profile card. */
export function roleLabel(role: number): { label: string; color: string } {
  if (role >= ROLE.root) return { label: "超级管理员", color: "red" };
  if (role >= ROLE.admin) return { label: "管理员", color: "orange" };
  return { label: "普通用户", color: "blue" };
}
