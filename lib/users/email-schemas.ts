// zod schemas of the e-mail calls (spec §7), shared by their routes and the console forms (so
// this file imports nothing but zod).
import { z } from "zod";

export const EMAIL_MAX = 50;

export const EMAIL_INVALID = "请输入正确的邮箱地址";

export const emailSchema = z.string({ error: EMAIL_INVALID }).trim().max(EMAIL_MAX, EMAIL_INVALID).pipe(z.email(EMAIL_INVALID));

export const sendCodeQuery = z.object({ email: emailSchema, turnstile: z.string().optional() });

export const resetConfirmBody = z.object({
  email: emailSchema,
  token: z.string({ error: "重置链接非法或已过期" }).trim().min(1, "重置链接非法或已过期").max(64),
});

export const bindEmailQuery = z.object({
  email: emailSchema,
  code: z.string({ error: "请输入验证码" }).trim().min(1, "请输入验证码").max(64),
});
