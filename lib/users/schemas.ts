// zod schemas for account input, shared by the /api routes and the console forms (so zod only:
// nothing here may pull server code into a browser bundle).
import { z } from "zod";

export const DISPLAY_NAME_MAX = 20;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;
import { EMAIL_MAX } from "@/lib/users/email-schemas";
import { USERNAME_MAX, usernameSchema } from "@/lib/users/username";

export { EMAIL_MAX, USERNAME_MAX, usernameSchema };

export const MSG = {
  loginRequired: "请输入用户名和密码",
  passwordTooShort: "密码长度不得小于 8 位！",
  passwordTooLong: "密码长度不得大于 20 位！",
  passwordsDiffer: "两次输入的密码不一致",
} as const;

export const passwordSchema = z
  .string({ error: MSG.passwordTooShort })
  .min(PASSWORD_MIN, MSG.passwordTooShort)
  .max(PASSWORD_MAX, MSG.passwordTooLong);

export const loginSchema = z.object({
  username: z.string({ error: MSG.loginRequired }).trim().min(1, MSG.loginRequired),
  password: z.string({ error: MSG.loginRequired }).min(1, MSG.loginRequired),
});

export const registerSchema = z
  .object({
    username: usernameSchema,
    password: passwordSchema,
    password2: z.string().optional(),
    email: z.string().trim().max(EMAIL_MAX).optional().default(""),
    verification_code: z.string().trim().optional().default(""),
    aff_code: z.string().trim().max(32).optional().default(""),
  })
  .refine((v) => v.password2 === undefined || v.password2 === v.password, {
    message: MSG.passwordsDiffer,
    path: ["password2"],
  });

export const updateSelfSchema = z.object({
  username: usernameSchema.optional(),
  display_name: z.string().trim().max(DISPLAY_NAME_MAX, `显示名称不能超过 ${DISPLAY_NAME_MAX} 个字符`).optional(),
  password: z.union([z.literal(""), passwordSchema]).optional(),
  original_password: z.string().optional(),
});

export type LoginInput = z.infer<typeof loginSchema>;
export type RegisterInput = z.infer<typeof registerSchema>;
export type UpdateSelfInput = z.infer<typeof updateSelfSchema>;

export const AFF_TRANSFER_INVALID = "转移额度必须是整数";

/** `POST /api/user/aff_transfer`: quota units; the minimum (QuotaPerUnit) and the balance are checked by lib/users/aff.ts. */
export const affTransferSchema = z.object({
  quota: z.number({ error: AFF_TRANSFER_INVALID }).int(AFF_TRANSFER_INVALID),
});
