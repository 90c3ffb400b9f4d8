// zod schemas for user administration (/api/user/, /api/user/search, /api/user/manage).
import { z } from "zod";
import { pageQuery } from "@/lib/api/envelope";
import { USER_ACTIONS } from "@/lib/users/manage-rules";
import { DISPLAY_NAME_MAX, EMAIL_MAX, passwordSchema, usernameSchema } from "@/lib/users/schemas";

const displayName = z.string().trim().max(DISPLAY_NAME_MAX, `显示名称不能超过 ${DISPLAY_NAME_MAX} 个字符`);
const quotaAmount = z.coerce
  .number({ error: "额度必须是整数" })
  .int("额度必须是整数")
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER);

export const userCreateSchema = z.object({
  username: usernameSchema,
  display_name: displayName.optional(),
  password: passwordSchema,
});

export const userUpdateSchema = z.object({
  id: z.coerce.number().int().positive(),
  username: usernameSchema.optional(),
  display_name: displayName.optional(),
  /** "" keeps the password. */
  password: z.union([z.literal(""), passwordSchema]).optional(),
  group: z.string().trim().min(1, "分组不能为空").optional(),
  /** The new balance (absolute, may be negative). */
  quota: quotaAmount.optional(),
  /**
   * The balance the form showed when it loaded. With it the edit is applied as the difference, so
   * what the relay spent in between is kept; without it the difference is taken from the balance
   * read when the request arrives.
   */
  original_quota: quotaAmount.optional(),
  role: z.coerce.number().int().optional(),
  email: z.union([z.literal(""), z.string().trim().max(EMAIL_MAX).pipe(z.email("邮箱地址格式不正确"))]).optional(),
});

export const userManageSchema = z.object({
  id: z.coerce.number().int().positive(),
  action: z.enum(USER_ACTIONS, { error: "无效的操作" }),
});

export const userListQuery = z.object(pageQuery);

export const userSearchQuery = z.object({
  ...pageQuery,
  keyword: z.string().trim().optional().default(""),
  group: z.string().trim().optional().default(""),
});

export type UserCreateInput = z.output<typeof userCreateSchema>;
export type UserUpdateInput = z.output<typeof userUpdateSchema>;
export type UserManageInput = z.output<typeof userManageSchema>;
export type UserListQuery = z.output<typeof userListQuery>;
export type UserSearchQuery = z.output<typeof userSearchQuery>;
