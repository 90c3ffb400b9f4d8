// Who is calling the relay and what they may use: the API key (or, for the playground, the
// console session), its user, and the key's limits. Every check answers in OpenAI's error shape.
import { getOptions, loadedOptions, type OptionValues } from "@/lib/options";
import { checkSessionCookie } from "@/lib/auth/session-check";
import { ipInList } from "@/lib/net/ip";
import { isAdmin, USER_STATUS } from "@/lib/auth/roles";
import { expiryPassed, quotaSpent, TOKEN_STATUS } from "@/lib/tokens/status";
import { tokenRemainNow } from "@/lib/billing/visible";
import { RelayError } from "@/lib/relay/errors";
import {
  cachedKeyEntry,
  cachedUserEntry,
  keyEntry,
  userEntry,
  type KeyEntry,
  type UserEntry,
} from "@/lib/relay/memory/key-user-channel-cache";
import type { RelayRequest } from "@/lib/relay/http";

export type RelayCaller = {
  user: UserEntry;
  /** null for the playground, which spends from the user's balance without a key. */
  key: KeyEntry | null;
  /** The key as sent, masked, for messages. */
  maskedKey: string;
  /** Channel pinned with `sk-KEY-<channelId>` (admins only). */
  pinnedChannelId: number | null;
  /** The group whose channels and ratio apply. */
  group: string;
};

const KEY_RE = /^[0-9A-Za-z]{48}$/;

const unauthorized = (message: string) => new RelayError(401, message, { code: "invalid_api_key" });
const forbidden = (message: string, code: string | null = null) => new RelayError(403, message, { code });
const spentKey = (masked: string) => unauthorized(`该令牌额度已用尽 ${masked}`);

export function maskKey(key: string): string {
  if (key.length <= 8) return "sk-****";
  return `sk-${key.slice(0, 4)}****${key.slice(-4)}`;
}

/**
 * The raw key from Authorization (Bearer), x-api-key, x-goog-api-key, mj-api-secret (Midjourney
 * clients; their Authorization may hold the placeholder "midjourney-proxy") or ?key=.
 */
export function readKey(req: RelayRequest): string {
  const auth = req.headers.get("authorization");
  if (auth) {
    const key = auth.replace(/^Bearer\s+/i, "").trim();
    if (key !== "midjourney-proxy") return key;
  }
  return (
    req.headers.get("x-api-key") ??
    req.headers.get("x-goog-api-key") ??
    req.headers.get("mj-api-secret") ??
    req.query.get("key") ??
    ""
  ).trim();
}

type ParsedKey = { key: string; channelPart: string | undefined; masked: string };
/** Authorization values already split: the same few keys arrive over and over. */
const parsedKeys = new Map<string, ParsedKey>();
const MAX_PARSED_KEYS = 10_000;

function parseKey(raw: string): ParsedKey {
  let parsed = parsedKeys.get(raw);
  if (!parsed) {
    const [key = "", channelPart] = raw.replace(/^sk-/, "").split("-");
    parsed = { key, channelPart, masked: maskKey(key) };
    // Only well-formed keys are remembered: junk cannot fill the map.
    if (KEY_RE.test(key)) {
      if (parsedKeys.size >= MAX_PARSED_KEYS) parsedKeys.clear();
      parsedKeys.set(raw, parsed);
    }
  }
  return parsed;
}

/**
 * Authenticates an API key and applies the key's own checks (status, expiry, IP, group). The
 * answer is synchronous when the key, its user and the options are in memory (the steady state),
 * a promise otherwise.
 */
export function authenticateKey(req: RelayRequest): RelayCaller | Promise<RelayCaller> {
  const raw = readKey(req);
  if (!raw) throw unauthorized("未提供令牌");
  const parsed = parseKey(raw);
  if (!KEY_RE.test(parsed.key)) throw unauthorized(`无效的令牌 ${parsed.masked}`);
  const token = cachedKeyEntry(parsed.key);
  if (token === undefined) return keyEntry(parsed.key).then((t) => withToken(req, parsed, t));
  return withToken(req, parsed, token);
}

/**
 * The caller of a keyed call: the one the door found from the headers before reading the body
 * (lib/relay/request/before-body.ts), else the key checked now. One check per request, never two.
 */
export function keyCaller(req: RelayRequest): RelayCaller | Promise<RelayCaller> {
  return (req.caller as RelayCaller | undefined) ?? authenticateKey(req);
}

function withToken(req: RelayRequest, parsed: ParsedKey, token: KeyEntry | null): RelayCaller | Promise<RelayCaller> {
  const { masked } = parsed;
  if (!token) throw unauthorized(`无效的令牌 ${masked}`);
  const now = Math.floor(Date.now() / 1000);
  if (token.status === TOKEN_STATUS.expired || expiryPassed(token.expiredTime, now)) throw unauthorized(`该令牌已过期 ${masked}`);
  if (token.status === TOKEN_STATUS.exhausted || quotaSpent(token.unlimited, token.remainHint)) throw spentKey(masked);
  if (token.status !== TOKEN_STATUS.enabled) throw unauthorized(`该令牌状态不可用 ${masked}`);
  const user = cachedUserEntry(token.userId);
  if (user === undefined) return userEntry(token.userId).then((u) => withUser(req, parsed, token, u));
  return withUser(req, parsed, token, user);
}

function withUser(req: RelayRequest, parsed: ParsedKey, token: KeyEntry, user: UserEntry | null): RelayCaller | Promise<RelayCaller> {
  if (!user || user.deleted) throw unauthorized(`无效的令牌 ${parsed.masked}`);
  if (user.status !== USER_STATUS.enabled) throw forbidden("用户已被封禁");

  if (token.allowIps && !ipInList(req.clientIp, token.allowIps)) {
    throw forbidden(`您的 IP ${req.clientIp} 不在令牌允许访问的列表中`, "ip_not_allowed");
  }

  let pinnedChannelId: number | null = null;
  if (parsed.channelPart !== undefined) {
    if (!isAdmin(user)) throw forbidden("普通用户不支持指定渠道");
    const id = Number(parsed.channelPart);
    if (!Number.isInteger(id) || id <= 0) throw forbidden("渠道 id 格式错误");
    pinnedChannelId = id;
  }

  const caller = (group: string): RelayCaller => ({ user, key: token, maskedKey: parsed.masked, pinnedChannelId, group });
  // The key's own group needs no options; another group is checked against them.
  if (!token.group || token.group === user.group) return caller(user.group);
  const options = loadedOptions();
  if (options) return caller(checkGroup(options, token.group));
  return getOptions().then((o) => caller(checkGroup(o, token.group)));
}

/**
 * The playground: the console session cookie plus the New-Api-User header; no API key. The
 * session goes through the console's own check (lib/auth/session-check.ts) on every request, so a
 * logout or password change refuses the next one; the playground is not the keyed hot path.
 */
export async function authenticateSession(req: RelayRequest, requestedGroup: string | undefined): Promise<RelayCaller> {
  const session = await checkSessionCookie(req.headers.get("cookie"));
  if (session.state === "none") throw new RelayError(401, "未登录或登录已过期，请重新登录！");
  const header = req.headers.get("new-api-user");
  if (!header || Number(header) !== session.user.id) throw new RelayError(401, "无权进行此操作，与登录用户不匹配");
  if (session.state === "inactive") throw forbidden("用户已被封禁");
  const user = await userEntry(session.user.id);
  if (!user || user.deleted) throw new RelayError(401, "未登录或登录已过期，请重新登录！");
  const group = await effectiveGroup(user, requestedGroup ?? "");
  return { user, key: null, maskedKey: "", pinnedChannelId: null, group };
}

async function effectiveGroup(user: UserEntry, wanted: string): Promise<string> {
  if (!wanted || wanted === user.group) return user.group;
  return checkGroup(await getOptions(), wanted);
}

/**
 * A group other than the user's own: allowed only while usable and priced. Own keys only: `in`
 * would take `constructor` or `toString` for groups through Object.prototype.
 */
function checkGroup(options: OptionValues, wanted: string): string {
  if (!Object.hasOwn(options.UserUsableGroups, wanted)) throw forbidden(`令牌分组 ${wanted} 已被禁用`);
  if (!Object.hasOwn(options.GroupRatio, wanted)) throw forbidden(`分组 ${wanted} 已被弃用`);
  return wanted;
}

/** The key's model limits; the model as the client named it (before any mapping). */
export function checkModelAllowed(caller: RelayCaller, model: string) {
  const limits = caller.key?.modelLimits;
  if (limits && !limits.has(model)) throw forbidden(`该令牌无权访问模型 ${model}`, "model_not_allowed");
}

/**
 * The answer to a reservation the balance could not cover. A shortfall refuses that one request
 * and nothing else: a smaller one may still fit, so no hint is lowered for it. Only a key found
 * really spent (quotaSpent on its quota as the token list shows it, read fresh) is answered
 * 该令牌额度已用尽, exactly when the list shows it 已耗尽; and when nothing would be left even if every
 * request in flight returned its reservation, the key is remembered as spent, so its next calls
 * are refused without asking the database (an edit of the token drops the memory).
 */
export async function shortfallRefusal(caller: RelayCaller, who: "user" | "token", reserved: number): Promise<RelayError> {
  const key = caller.key;
  if (who === "token" && key) {
    const now = await tokenRemainNow(key.id);
    if (now && quotaSpent(key.unlimited, now.shown)) {
      if (quotaSpent(key.unlimited, now.left)) key.remainHint = now.left;
      return spentKey(caller.maskedKey);
    }
    return new RelayError(403, `令牌额度不足 ${caller.maskedKey}`, { type: "insufficient_user_quota", code: "insufficient_token_quota" });
  }
  return new RelayError(403, `用户额度不足，剩余额度不足以支付本次请求（预扣 ${reserved}）`, {
    type: "insufficient_user_quota",
    code: "insufficient_user_quota",
  });
}
