// Telegram sign-in with the Login Widget. After the user confirms in Telegram, the widget sends the
// browser to our URL with the account's fields (id, first_name, last_name, username, photo_url,
// auth_date) and `hash`, Telegram's signature of them: hex HMAC-SHA256 keyed with SHA-256(bot token)
// over the data-check string (every field but hash as `key=value`, sorted, joined by "\n"). Any field
// the URL carries counts, so an added one (new-api's `lang`) must be signed too. Beyond new-api:
// a payload is good for a day after auth_date (Telegram's advice) and only once (claimFirstUse).
// A Telegram account signs in only to an account it was bound to (new-api): no sign-up.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { bindAccount } from "@/lib/accounts/bindings";
import { boundAccount, type SignInAccount } from "@/lib/accounts/provider-accounts";
import { claimFirstUse } from "@/lib/accounts/used-once";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { ApiError, forbidden } from "@/lib/errors";
import { getOptions } from "@/lib/options";

export const TELEGRAM_MSG = {
  disabled: "管理员未开启通过 Telegram 登录以及注册",
  invalid: "无效的请求",
  stale: "Telegram 授权已过期，请重新授权",
  future: "Telegram 授权时间无效，请检查服务器时间",
  replayed: "该 Telegram 授权已使用，请重新授权",
  unbound: "该 Telegram 账户未绑定",
  taken: "该 Telegram 账户已被绑定",
  bound: "Telegram 账户绑定成功",
} as const;

/** A payload is refused a day after its auth_date. */
export const TELEGRAM_MAX_AGE_SECONDS = 86_400;
/** How far ahead of our clock an auth_date may be (Telegram's clock and ours differ a little). */
export const TELEGRAM_CLOCK_SKEW_SECONDS = 60;
/** More fields than this, or longer values, are not the widget's. */
const MAX_FIELDS = 32;
const MAX_VALUE_LENGTH = 1024;

/** The data-check string of a widget payload: every field but `hash`, `key=value`, sorted, one a line. */
export function telegramCheckString(fields: ReadonlyMap<string, string>): string {
  return [...fields]
    .filter(([key]) => key !== "hash")
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join("\n");
}

/** The fields of a query, or null when one repeats (which of them Telegram signed is then unclear). */
function singleFields(params: URLSearchParams): Map<string, string> | null {
  const fields = new Map<string, string>();
  for (const [key, value] of params) {
    if (fields.has(key) || fields.size >= MAX_FIELDS || value.length > MAX_VALUE_LENGTH) return null;
    fields.set(key, value);
  }
  return fields;
}

/**
 * The Telegram user id of a widget payload (the query of the widget's redirect), once it is
 * signed with the bot's token, at most a day old and not used before.
 */
async function verifiedTelegramId(params: URLSearchParams, ip: string): Promise<string> {
  const options = await getOptions();
  if (!options.TelegramOAuthEnabled) throw forbidden(TELEGRAM_MSG.disabled);
  await enforceRateLimit(`telegram:ip:${ip}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);

  const fields = singleFields(params);
  const hash = fields?.get("hash") ?? "";
  const id = fields?.get("id") ?? "";
  const authDate = Number(fields?.get("auth_date") ?? Number.NaN);
  if (!fields || !/^[0-9a-f]{64}$/.test(hash) || !/^[1-9][0-9]{0,19}$/.test(id) || !Number.isSafeInteger(authDate)) {
    throw new ApiError(TELEGRAM_MSG.invalid, 400);
  }
  const secret = createHash("sha256").update(options.TelegramBotToken).digest();
  const expected = createHmac("sha256", secret).update(telegramCheckString(fields)).digest();
  if (!timingSafeEqual(expected, Buffer.from(hash, "hex"))) throw new ApiError(TELEGRAM_MSG.invalid, 400);

  const now = nowSeconds();
  if (now - authDate > TELEGRAM_MAX_AGE_SECONDS) throw new ApiError(TELEGRAM_MSG.stale, 400);
  if (authDate - now > TELEGRAM_CLOCK_SKEW_SECONDS) throw new ApiError(TELEGRAM_MSG.future, 400);
  // Remembered until the payload would be stale anyway.
  const remember = authDate + TELEGRAM_MAX_AGE_SECONDS + TELEGRAM_CLOCK_SKEW_SECONDS - now;
  if (!(await claimFirstUse("telegram:payload", hash, remember))) throw new ApiError(TELEGRAM_MSG.replayed, 400);
  return id;
}

/** Signs in the account the payload's Telegram account is bound to. */
export async function signInWithTelegram(params: URLSearchParams, ip: string): Promise<SignInAccount> {
  const account = await boundAccount("telegram_id", await verifiedTelegramId(params, ip));
  if (!account) throw new ApiError(TELEGRAM_MSG.unbound, 400);
  return account;
}

/** Binds the payload's Telegram account to user `userId` (refused when another account has it). */
export async function bindTelegram(userId: number, params: URLSearchParams, ip: string): Promise<void> {
  await bindAccount(userId, "telegram_id", await verifiedTelegramId(params, ip), undefined, new ApiError(TELEGRAM_MSG.taken, 400));
}
