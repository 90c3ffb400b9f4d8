// Step-up: a few actions (revealing a channel key, a new system access token, changing two-factor)
// need the caller to have proved again who they are within the last STEP_UP_SECONDS: the password,
// a TOTP code or a passkey, through POST /api/verify (or the passkey verify ceremony), which marks
// the session (user_sessions.verified_at). A sign-in with the password or a passkey counts too.
import type { Caller } from "@/lib/auth/authenticate";
import { nowSeconds } from "@/lib/db/num";
import { ApiError } from "@/lib/errors";

export const STEP_UP_SECONDS = 300;

export const STEP_UP_MSG = {
  required: "此操作需要验证身份，请输入密码、两步验证码或使用通行密钥后重试",
  sessionOnly: "此操作需要在控制台登录后验证身份，不能使用 access token",
} as const;

/** Whether the caller's session was verified within STEP_UP_SECONDS. */
export function isSteppedUp(caller: Caller, now = nowSeconds()): boolean {
  const at = caller.session?.verified_at ?? 0;
  return at > 0 && now - at <= STEP_UP_SECONDS;
}

/**
 * Throws unless the caller stepped up recently. The refusal is 403 with `data: { step_up: true }`,
 * which the console's api client answers by asking for the password, a code or a passkey and
 * retrying (components/auth/step-up.tsx). An access token cannot step up.
 */
export function requireStepUp(caller: Caller): void {
  if (caller.via !== "session") throw new ApiError(STEP_UP_MSG.sessionOnly, 403);
  if (!isSteppedUp(caller)) throw new ApiError(STEP_UP_MSG.required, 403, { step_up: true });
}
