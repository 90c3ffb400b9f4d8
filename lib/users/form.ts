// The add-user and edit-user drawers' rules (spec §2 manage users, §5 Users), pure so they are
// unit-tested: required fields, the add-quota sum (negative amounts allowed) and the bodies sent to
// POST and PUT /api/user/.
// Browser-safe: the password limits come from the console's own form rules, not lib/auth/password.
import { PASSWORD_TOO_LONG, PASSWORD_TOO_SHORT } from "@/lib/ui/auth-schemas";

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 20;

export const USER_FORM_MSG = {
  usernameRequired: "请输入用户名",
  passwordRequired: "请输入密码",
  passwordShort: PASSWORD_TOO_SHORT,
  passwordLong: PASSWORD_TOO_LONG,
  quotaInteger: "额度必须是整数",
  created: "用户账户创建成功！",
  updated: "用户信息更新成功！",
  done: "操作成功完成！",
  passwordPlaceholder: `请输入新的密码，最短 ${PASSWORD_MIN} 位`,
  addQuotaPlaceholder: "需要添加的额度（支持负数）",
  bindingsReadOnly: "此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改",
} as const;

export type AddUserValues = { username: string; display_name: string; password: string };

export type EditUserValues = {
  username: string;
  display_name: string;
  password: string;
  group: string;
  /** The balance field (quota units). */
  quota: number | string;
  /** Added to the balance on save; may be negative; "" adds nothing. */
  add_quota: number | string;
};

/** Field errors of the add form (username and password required, password 8 to 20). */
export function addUserErrors(v: AddUserValues): Partial<Record<keyof AddUserValues, string>> {
  const errors: Partial<Record<keyof AddUserValues, string>> = {};
  if (!v.username.trim()) errors.username = USER_FORM_MSG.usernameRequired;
  if (!v.password) errors.password = USER_FORM_MSG.passwordRequired;
  else if (v.password.length < PASSWORD_MIN) errors.password = USER_FORM_MSG.passwordShort;
  else if (v.password.length > PASSWORD_MAX) errors.password = USER_FORM_MSG.passwordLong;
  return errors;
}

/** A whole number from an input (number or text); "" is 0; null when it is not a whole number. */
export function wholeNumber(value: number | string): number | null {
  const text = String(value).trim();
  if (text === "" || text === "-") return 0;
  if (!/^-?\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** The balance after adding `add_quota` to the balance field; null when either is not whole. */
export function quotaAfterAdd(v: Pick<EditUserValues, "quota" | "add_quota">): number | null {
  const quota = wholeNumber(v.quota);
  const add = wholeNumber(v.add_quota);
  if (quota === null || add === null) return null;
  const sum = quota + add;
  return Number.isSafeInteger(sum) ? sum : null;
}

/** Field errors of the edit form; the password is optional ("" keeps it). */
export function editUserErrors(v: EditUserValues): Partial<Record<keyof EditUserValues, string>> {
  const errors: Partial<Record<keyof EditUserValues, string>> = {};
  if (!v.username.trim()) errors.username = USER_FORM_MSG.usernameRequired;
  if (v.password && v.password.length < PASSWORD_MIN) errors.password = USER_FORM_MSG.passwordShort;
  else if (v.password.length > PASSWORD_MAX) errors.password = USER_FORM_MSG.passwordLong;
  if (wholeNumber(v.quota) === null) errors.quota = USER_FORM_MSG.quotaInteger;
  if (wholeNumber(v.add_quota) === null) errors.add_quota = USER_FORM_MSG.quotaInteger;
  return errors;
}

/**
 * PUT /api/user/ body. `original_quota` is the balance the drawer loaded, so the server applies only
 * the difference and keeps what the relay spent meanwhile.
 */
export function editUserBody(id: number, v: EditUserValues, loadedQuota: number) {
  return {
    id,
    username: v.username.trim(),
    display_name: v.display_name.trim(),
    password: v.password,
    group: v.group,
    quota: quotaAfterAdd(v) ?? loadedQuota,
    original_quota: loadedQuota,
  };
}
