// Sliding-window rate limits for sensitive calls (login and registration per address, failed
// logins per name, failed redemptions per user). The windows live in the shared cache
// (lib/cache/shared.ts): on Redis when REDIS_CONN_STRING is set, so that every instance counts the
// same hits, else in this process's memory (shared through globalThis by Next's bundles and the
// server).
import { tooManyRequests } from "@/lib/errors";
import { type SharedCache, sharedCache } from "@/lib/cache/shared";

export interface RateLimitStore {
  /** Records a hit and says whether it is within `limit` hits per `windowSeconds`. */
  hit(key: string, limit: number, windowSeconds: number): Promise<boolean>;
  /** Counts hits in the window without recording one. */
  count(key: string, windowSeconds: number): Promise<number>;
  reset(key: string): Promise<void>;
}

const PREFIX = "ratelimit:";

/** Rate limits kept in `cache` (the process's shared cache unless given). */
export function rateLimitStore(cache?: SharedCache): RateLimitStore {
  const store = () => cache ?? sharedCache();
  return {
    hit: (key, limit, windowSeconds) => store().hitWindow(PREFIX + key, limit, windowSeconds),
    count: (key, windowSeconds) => store().countWindow(PREFIX + key, windowSeconds),
    reset: (key) => store().del(PREFIX + key),
  };
}

/** Throws the 429 envelope error when `key` is over its limit. */
export async function enforceRateLimit(key: string, limit: number, windowSeconds: number, store = rateLimitStore()): Promise<void> {
  if (limit <= 0) return;
  if (!(await store.hit(key, limit, windowSeconds))) throw tooManyRequests("请求次数过多，请稍后再试！");
}
