// The add-user and edit-user drawers' rules (spec §2 manage users, §5 Users), pure so they are
// unit-tested: required fields, the add-quota sum (negative amounts allowed) and the bodies sent to
// POST and PUT /api/user/. Every other rule is the API's own schema, so the drawer marks a field
// the server would refuse, with the server's words.
import { schemaResolver } from "@mantine/form";
import { userCreateSchema, userUpdateSchema } from "@/lib/users/admin-schemas";
import { MSG, PASSWORD_MIN, passwordSchema } from "@/lib/users/schemas";

export const USER_FORM_MSG = {
  usernameRequired: "请输入用户名",
  passwordRequired: "请输入密码",
  passwordShort: MSG.passwordTooShort,
  passwordLong: MSG.passwordTooLong,
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

type Errors<V> = Partial<Record<keyof V, string>>;

const createErrors = schemaResolver(userCreateSchema, { sync: true });
const editErrors = schemaResolver(userUpdateSchema.pick({ username: true, display_name: true, group: true }), { sync: true });
const passwordErrors = schemaResolver(passwordSchema, { sync: true });

/** Field errors of the add form: username and password required (the form's words), then POST /api/user/'s schema. */
export function addUserErrors(v: AddUserValues): Errors<AddUserValues> {
  const errors = createErrors(v) as Errors<AddUserValues>;
  if (!v.username.trim()) errors.username = USER_FORM_MSG.usernameRequired;
  if (!v.password) errors.password = USER_FORM_MSG.passwordRequired;
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

/**
 * Field errors of the edit form: PUT /api/user/'s schema for the names and the group; the password
 * is optional ("" keeps it), else the schema's password rule. The two quota inputs become one
 * balance on save, so each is checked here as a whole number.
 */
export function editUserErrors(v: EditUserValues): Errors<EditUserValues> {
  const errors = editErrors({ username: v.username, display_name: v.display_name, group: v.group }) as Errors<EditUserValues>;
  if (!v.username.trim()) errors.username = USER_FORM_MSG.usernameRequired;
  const password = v.password ? passwordErrors(v.password)[""] : undefined;
  if (password) errors.password = String(password);
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
