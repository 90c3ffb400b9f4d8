// Options whose feature arrives with a later issue: WeChat and Telegram login (the accounts issue) and
// the EPay gateway (the payments issue). The system tab shows their fields disabled with
// NOT_YET_OPEN and /api/status reports the logins off, so no one can switch on a login button or
// a payment that answers 404. Client-safe.

export const NOT_YET_OPEN = "尚未开放";

/** The login switches whose flows do not exist yet. */
export const UNAVAILABLE_LOGINS: ReadonlySet<string> = new Set(["WeChatAuthEnabled", "TelegramOAuthEnabled"]);
