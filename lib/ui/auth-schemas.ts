// Client-side checks of the login and register forms, with the original console's messages
// (spec §5). The server validates again.
import { z } from "zod";

export const LOGIN_REQUIRED = "请输入用户名和密码！";
export const PASSWORD_TOO_SHORT = "密码长度不得小于 8 位！";
export const PASSWORD_TOO_LONG = "密码长度不得大于 20 位！";
export const PASSWORDS_DIFFER = "两次输入的密码不一致";

/** A new password as every console form checks it: 8 to 20 characters. */
export const newPasswordField = z.string().min(8, PASSWORD_TOO_SHORT).max(20, PASSWORD_TOO_LONG);

export const loginFormSchema = z.object({
  username: z.string().trim().min(1, LOGIN_REQUIRED),
  password: z.string().min(1, LOGIN_REQUIRED),
});
export type LoginFormValues = z.input<typeof loginFormSchema>;

export function registerFormSchema(emailVerification: boolean) {
  return z
    .object({
      username: z.string().trim().min(1, "请输入用户名"),
      password: newPasswordField,
      password2: z.string(),
      email: emailVerification ? z.string().trim().email("请输入正确的邮箱地址") : z.string(),
      verification_code: emailVerification ? z.string().trim().min(1, "请输入验证码") : z.string(),
    })
    .refine((v) => v.password === v.password2, { message: PASSWORDS_DIFFER, path: ["password2"] });
}
export type RegisterFormValues = z.input<ReturnType<typeof registerFormSchema>>;
