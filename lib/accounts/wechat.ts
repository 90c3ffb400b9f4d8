// WeChat sign-in through a wechat-server (new-api's protocol): the user scans the official
// account's QR code, sends it "验证码" and gets a code back, valid three minutes; we trade the code
// for the WeChat account's openid with `GET {WeChatServerAddress}/api/wechat/user?code=` and the
// header `Authorization: {WeChatServerToken}`, answered `{success, message, data: <openid>}` (an
// empty `data` is an unknown or expired code). The openid then signs in the account bound to it,
// or a new account (registration on), or is bound to the signed-in account.
import { z } from "zod";
import { bindAccount } from "@/lib/accounts/bindings";
import { boundAccount, type SignInAccount } from "@/lib/accounts/provider-accounts";
import { claimFirstUse } from "@/lib/accounts/used-once";
import { WECHAT_CODE_MSG } from "@/lib/accounts/wechat-schemas";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { env } from "@/lib/env";
import { ApiError, forbidden } from "@/lib/errors";
import { getOptions } from "@/lib/options";
import { createProviderUser } from "@/lib/users/create";
import { componentLogger } from "@/lib/log";

const log = componentLogger("wechat");

export const WECHAT_MSG = {
  disabled: "管理员未开启通过微信登录以及注册",
  ...WECHAT_CODE_MSG,
  usedCode: "该验证码已使用，请重新获取",
  taken: "该微信账号已被绑定",
  bound: "微信账号绑定成功",
  unreachable: "无法连接微信登录服务，请稍后再试或联系管理员",
  refused: (message: string) => `微信登录服务拒绝了请求：${message}，请联系管理员`,
} as const;

/** What a new account made by a WeChat sign-in is called until its owner renames it. */
export const WECHAT_DISPLAY_NAME = "微信用户";

const WECHAT_SERVER_TIMEOUT_MS = 5_000;
/** wechat-server answers a code for 3 minutes from when it gave it out; a used one is remembered a little longer. */
const USED_CODE_SECONDS = 4 * 60;

const wechatServerAnswer = z.object({ success: z.boolean(), message: z.string().optional(), data: z.unknown().optional() });

/** The openid wechat-server gives for `code`; refused once the code was used here before. */
async function openIdFor(code: string, ip: string): Promise<string> {
  const options = await getOptions();
  if (!options.WeChatAuthEnabled) throw forbidden(WECHAT_MSG.disabled);
  await enforceRateLimit(`wechat:ip:${ip}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);

  const url = `${options.WeChatServerAddress.replace(/\/+$/, "")}/api/wechat/user?code=${encodeURIComponent(code)}`;
  let response: Response;
  try {
    // No redirects: the token goes to the configured server and nowhere else.
    response = await fetch(url, {
      headers: { authorization: options.WeChatServerToken, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(WECHAT_SERVER_TIMEOUT_MS),
    });
  } catch (error) {
    log.error({ err: error, server: options.WeChatServerAddress }, "server unreachable");
    throw new ApiError(WECHAT_MSG.unreachable, 502);
  }
  const answer = wechatServerAnswer.safeParse(await response.json().catch(() => null));
  if (!answer.success) {
    log.error({ server: options.WeChatServerAddress, status: response.status }, "server answered without its JSON");
    throw new ApiError(WECHAT_MSG.unreachable, 502);
  }
  if (!answer.data.success) {
    // Usually a wrong WeChatServerToken: the operator must see it, and the user must be told to ask.
    const message = answer.data.message || `HTTP ${response.status}`;
    log.error({ server: options.WeChatServerAddress, reason: message }, "server refused the code lookup");
    throw new ApiError(WECHAT_MSG.refused(message), 502);
  }
  const openId = typeof answer.data.data === "string" ? answer.data.data : "";
  if (!openId) throw new ApiError(WECHAT_MSG.badCode, 400);
  // wechat-server answers a code as often as it is asked while it is fresh; here it works once.
  if (!(await claimFirstUse("wechat:code", `${code}\n${openId}`, USED_CODE_SECONDS))) throw new ApiError(WECHAT_MSG.usedCode, 400);
  return openId;
}

/**
 * Signs in with a WeChat code: the account bound to its openid, or a new one (when registration is
 * on) with the start quota and, with `affCode`, the invitation rewards.
 */
export async function signInWithWeChat(code: string, affCode: string | undefined, ip: string): Promise<SignInAccount> {
  const openId = await openIdFor(code, ip);
  const existing = await boundAccount("wechat_id", openId);
  if (existing) return existing;
  await createProviderUser({
    prefix: "wechat",
    displayName: WECHAT_DISPLAY_NAME,
    aff_code: affCode || null,
    binding: { column: "wechat_id", value: openId },
  });
  const created = await boundAccount("wechat_id", openId);
  if (!created) throw new ApiError(WECHAT_MSG.badCode, 400);
  return created;
}

/** Binds the WeChat account of `code` to user `userId` (refused when another account has it). */
export async function bindWeChat(userId: number, code: string, ip: string): Promise<void> {
  await bindAccount(userId, "wechat_id", await openIdFor(code, ip), undefined, new ApiError(WECHAT_MSG.taken, 400));
}
