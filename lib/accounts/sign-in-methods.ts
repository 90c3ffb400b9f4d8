// The ways an account can sign in right now: its password (when it has one and password login is
// on), each bound third-party account whose login the operator has switched on, and its passkeys.
// Unbinding a provider or removing a passkey is refused when it would leave none (the caller says
// which method it is about to take away).
import { getDirectDb } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import { getOptions } from "@/lib/options";

export type SignInWay = "password" | "github" | "linuxdo" | "oidc" | "wechat" | "telegram" | "passkey";

export const SIGN_IN_WAY_MSG = {
  lastWay: "这是该账户唯一可用的登录方式，请先设置密码或绑定其他登录方式",
} as const;

/** The ways `userId` can sign in now; a way may appear once per passkey. */
export async function signInWays(userId: number): Promise<SignInWay[]> {
  const db = await getDirectDb();
  const [user] = await db.query(
    "SELECT password, github_id, linux_do_id, oidc_id, wechat_id, telegram_id, (SELECT COUNT(*) FROM passkeys WHERE user_id = ?) AS passkeys FROM users WHERE id = ? AND deleted_at IS NULL",
    [userId, userId],
  );
  if (!user) return [];
  const o = await getOptions();
  const ways: SignInWay[] = [];
  if (str(user.password) && o.PasswordLoginEnabled) ways.push("password");
  if (str(user.github_id) && o.GitHubOAuthEnabled) ways.push("github");
  if (str(user.linux_do_id) && o.LinuxDOOAuthEnabled) ways.push("linuxdo");
  if (str(user.oidc_id) && o["oidc.enabled"]) ways.push("oidc");
  if (str(user.wechat_id) && o.WeChatAuthEnabled) ways.push("wechat");
  if (str(user.telegram_id) && o.TelegramOAuthEnabled) ways.push("telegram");
  for (let i = 0; i < int(user.passkeys); i++) ways.push("passkey");
  return ways;
}

/** Whether taking away one `way` still leaves the account a way to sign in. */
export async function canGiveUp(userId: number, way: SignInWay): Promise<boolean> {
  const ways = await signInWays(userId);
  const at = ways.indexOf(way);
  if (at < 0) return ways.length > 0;
  return ways.length - 1 > 0;
}
