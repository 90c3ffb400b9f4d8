// zod schemas of the WeChat calls, shared by their routes and the console's code modal (so this
// file imports nothing but zod).
import { z } from "zod";

export const WECHAT_CODE_MSG = {
  needCode: "请输入验证码",
  badCode: "验证码错误或已过期",
} as const;

/** The code the user typed: wechat-server's codes are short runs of digits (letters tolerated). */
export const wechatCodeSchema = z
  .string({ error: WECHAT_CODE_MSG.needCode })
  .trim()
  .min(1, WECHAT_CODE_MSG.needCode)
  .max(32, WECHAT_CODE_MSG.badCode)
  .regex(/^[0-9A-Za-z]+$/, WECHAT_CODE_MSG.badCode);

/** GET /api/oauth/wechat: the code, and the inviter's aff code the login page kept. */
export const wechatSignInQuery = z.object({ code: wechatCodeSchema, aff: z.string().trim().max(32).optional() });

/** GET /api/oauth/wechat/bind?code (the spec), POST with `{code}` (new-api's newer call). */
export const wechatBindInput = z.object({ code: wechatCodeSchema });
