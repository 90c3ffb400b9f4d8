// Per-user model request limits, as new-api's ModelRequestRateLimit* options define them:
//   - every relay request a user's keys make counts against ModelRequestRateLimitCount per
//     ModelRequestRateLimitDurationMinutes, failures included (0: no such limit);
//   - ModelRequestRateLimitSuccessCount bounds the answers below 400 in the same window: a request
//     is admitted only while the window has room, and counted once it has succeeded;
//   - ModelRequestRateLimitGroup's [requests, successes] for the caller's group (the key's, else
//     the user's) replace both numbers;
//   - the console playground is not limited (new-api sends it through no such check), nor are the
//     free GETs (model lists, billing); a request the limits refuse is not counted itself.
// Over a limit: 429 in the caller's protocol, new-api's message, and `retry-after` (the seconds
// until the oldest hit leaves the window).
//
// The windows are sliding logs (lib/cache/shared.ts `logHit`): the last `limit` hit times per user,
// so a check is O(1) and exact, and says when a slot frees. Fixed buckets would let twice the
// limit through across a bucket edge, and a weighted two-bucket estimate is not exact, where the
// limit must be exact across instances. A log holds at most `limit` times and only while they are
// in the window: its memory follows the user's traffic.
//
// The logs live in the shared cache: on Redis when REDIS_CONN_STRING is set (one Lua script per
// check, so every instance counts the same hits), else in this process, or, in the relay workers
// of `npm start`, in their primary (one message each way), so the workers share one count. A
// Redis failure never refuses requests: the limits fall back to this process's memory for a
// while, and the log says so.
import { MemoryCache, type HitRecord, RedisCache, type SharedCache, sharedCache } from "@/lib/cache/shared";
import type { OptionValues } from "@/lib/options";
import type { RelayCaller } from "@/lib/relay/memory/key-auth";
import { RelayError } from "@/lib/relay/errors";
import { componentLogger } from "@/lib/log";

const log = componentLogger("request-limits");

/** After a Redis failure, how long the limits count in this process before trying Redis again. */
const REDIS_RETRY_MS = 30_000;

const local = new MemoryCache();
let redisDownUntil = 0;
/** Without Redis: where this process's hits are counted, when not in its own memory. */
let processHits: Pick<SharedCache, "logHit"> | null = null;

/** A relay worker of `npm start` without Redis: the primary keeps every worker's logs (lib/server/hit-log.ts). */
export function countHitsIn(store: Pick<SharedCache, "logHit">) {
  processHits = store;
}

async function logHit(key: string, limit: number, windowMs: number, record: HitRecord): Promise<number> {
  const shared = sharedCache();
  if (!(shared instanceof RedisCache)) return (processHits ?? shared).logHit(key, limit, windowMs, record);
  if (redisDownUntil !== 0) {
    if (Date.now() < redisDownUntil) return local.logHit(key, limit, windowMs, record);
    redisDownUntil = 0;
    log.warn("request limits: trying Redis again");
  }
  try {
    return await shared.logHit(key, limit, windowMs, record);
  } catch (error) {
    if (redisDownUntil === 0) {
      log.error({ err: error, retryInSeconds: REDIS_RETRY_MS / 1000 }, "request limits: Redis failed; counting in this process");
    }
    redisDownUntil = Date.now() + REDIS_RETRY_MS;
    return local.logHit(key, limit, windowMs, record);
  }
}

/** The two limits that apply to `group`: its override, else the global pair (0 = none). */
export function requestLimitsFor(options: OptionValues, group: string): { total: number; success: number } {
  const groups = options.ModelRequestRateLimitGroup;
  const override = Object.hasOwn(groups, group) ? groups[group] : undefined;
  if (override) return { total: override[0], success: override[1] };
  return { total: options.ModelRequestRateLimitCount, success: options.ModelRequestRateLimitSuccessCount };
}

const refusal = (message: string, waitMs: number) =>
  new RelayError(429, message, {
    code: "model_request_rate_limited",
    headers: { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) },
  });

/** What to call once the request has an answer: counts it when it succeeded. */
export type RequestOutcome = (status: number) => void;

/**
 * Admits the caller's request or throws the 429. Called only when ModelRequestRateLimitEnabled is
 * on. The success window is only looked at here (a request that then fails does not use it); the
 * request window records the request now, failures included.
 */
export async function admitRequest(options: OptionValues, caller: RelayCaller): Promise<RequestOutcome | null> {
  const minutes = options.ModelRequestRateLimitDurationMinutes;
  const windowMs = minutes * 60_000;
  const { total, success } = requestLimitsFor(options, caller.group);
  const successKey = `mrrl:success:${caller.user.id}`;
  if (success > 0) {
    const wait = await logHit(successKey, success, windowMs, "no");
    if (wait > 0) throw refusal(`您已达到请求数限制：${minutes}分钟内最多请求${success}次`, wait);
  }
  if (total > 0) {
    const wait = await logHit(`mrrl:total:${caller.user.id}`, total, windowMs, "fits");
    if (wait > 0) {
      throw refusal(`您已达到总请求数限制：${minutes}分钟内最多请求${total}次，包括失败次数，请检查您的请求是否正确`, wait);
    }
  }
  if (success <= 0) return null;
  return (status) => {
    if (status >= 400) return;
    logHit(successKey, success, windowMs, "always").catch((err) => log.error({ err }, "request limits: success not counted"));
  };
}
