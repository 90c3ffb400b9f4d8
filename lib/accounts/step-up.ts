// Proving again who one is for the actions behind lib/auth/step-up.ts (POST /api/verify, new-api's
// UniversalVerify path): the account's password or a code of its second factor marks the caller's
// session as verified for STEP_UP_SECONDS. A passkey does the same through the passkey verify
// ceremony. Wrong passwords share the sign-in's per-account budget (lib/users/auth.ts) and wrong
// codes the two-factor one, so neither path guesses faster than the other.
import { z } from "zod";
import type { Caller } from "@/lib/auth/authenticate";
import { verifyPassword } from "@/lib/auth/password";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { markSessionVerified } from "@/lib/auth/sessions";
import { STEP_UP_MSG, STEP_UP_SECONDS } from "@/lib/auth/step-up";
import { getDirectDb } from "@/lib/db/direct";
import { bool, int, nowSeconds, str } from "@/lib/db/num";
import { env } from "@/lib/env";
import { ApiError, forbidden } from "@/lib/errors";
import { verifySecondFactor } from "@/lib/accounts/two-factor";
import { clearPasswordFailures, notePasswordFailure, refuseIfLocked } from "@/lib/users/auth";

export const VERIFY_MSG = {
  verified: "验证成功",
  wrongPassword: "密码错误",
  noPassword: "该账户未设置密码，请使用其他方式验证",
  passkeyFlow: "通行密钥验证请使用 /api/user/passkey/verify/begin 与 /api/user/passkey/verify/finish",
  method: "不支持的验证方式",
} as const;

// `scope` is new-api's (its proof is per action); here one verification covers every action for
// STEP_UP_SECONDS, so it is accepted and not used.
export const verifySchema = z.discriminatedUnion(
  "method",
  [
    z.object({ method: z.literal("password"), password: z.string().min(1, "请输入密码").max(128), scope: z.string().optional() }),
    z.object({ method: z.literal("2fa"), code: z.string().trim().min(1, "请输入验证码").max(32), scope: z.string().optional() }),
    z.object({ method: z.literal("passkey"), scope: z.string().optional() }),
  ],
  { error: VERIFY_MSG.method },
);
export type VerifyInput = z.output<typeof verifySchema>;

/** Which ways the account has to step up (the console's step-up dialog offers only these). */
export type StepUpMethods = { password: boolean; two_factor: boolean; passkey: boolean };

export async function stepUpMethods(userId: number): Promise<StepUpMethods> {
  const db = await getDirectDb();
  const [row] = await db.query(
    "SELECT u.password, (SELECT enabled FROM two_factors WHERE user_id = u.id) AS two_factor, (SELECT COUNT(*) FROM passkeys WHERE user_id = u.id) AS passkeys FROM users u WHERE u.id = ?",
    [userId],
  );
  return { password: !!str(row?.password), two_factor: bool(row?.two_factor), passkey: int(row?.passkeys) > 0 };
}

/** POST /api/verify: checks the password or code and marks the caller's session verified. */
export async function verifyIdentity(caller: Caller, input: VerifyInput, ip: string): Promise<{ method: string; expires_at: number }> {
  if (caller.via !== "session" || !caller.session) throw forbidden(STEP_UP_MSG.sessionOnly);
  await enforceRateLimit(`verify:ip:${ip}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);
  if (input.method === "passkey") throw new ApiError(VERIFY_MSG.passkeyFlow, 400);
  if (input.method === "password") await checkPassword(caller.id, input.password, ip);
  else await verifySecondFactor(caller.id, input.code, ip);
  await markSessionVerified(caller.session.jti);
  return { method: input.method, expires_at: nowSeconds() + STEP_UP_SECONDS };
}

async function checkPassword(userId: number, password: string, ip: string): Promise<void> {
  const attempt = { accountId: userId, ip };
  await refuseIfLocked(attempt);
  const db = await getDirectDb();
  const [row] = await db.query("SELECT password FROM users WHERE id = ?", [userId]);
  const hash = str(row?.password);
  if (!hash) throw new ApiError(VERIFY_MSG.noPassword, 400);
  if (!(await verifyPassword(password, hash))) {
    await notePasswordFailure(attempt);
    throw new ApiError(VERIFY_MSG.wrongPassword, 400);
  }
  await clearPasswordFailures(userId);
}
