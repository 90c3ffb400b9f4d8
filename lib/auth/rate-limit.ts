// Sliding-window rate limits for sensitive calls. The store is in memory (per instance) and is
// shared through globalThis by Next's bundles and the edge server; a Redis store replaces it when
// several instances run (REDIS_CONN_STRING).
import { tooManyRequests } from "@/lib/api/errors";

export interface RateLimitStore {
  /** Records a hit and says whether it is within `limit` hits per `windowSeconds`. */
  hit(key: string, limit: number, windowSeconds: number): Promise<boolean>;
  /** Counts hits in the window without recording one. */
  count(key: string, windowSeconds: number): Promise<number>;
  reset(key: string): Promise<void>;
}

class MemoryStore implements RateLimitStore {
  private hits = new Map<string, number[]>();
  private sweeps = 0;

  private recent(key: string, windowSeconds: number, now: number): number[] {
    const from = now - windowSeconds * 1000;
    const list = (this.hits.get(key) ?? []).filter((t) => t > from);
    if (list.length) this.hits.set(key, list);
    else this.hits.delete(key);
    return list;
  }

  async hit(key: string, limit: number, windowSeconds: number) {
    const now = Date.now();
    if (++this.sweeps % 1000 === 0) this.sweep(now);
    const list = this.recent(key, windowSeconds, now);
    if (list.length >= limit) return false;
    list.push(now);
    this.hits.set(key, list);
    return true;
  }

  async count(key: string, windowSeconds: number) {
    return this.recent(key, windowSeconds, Date.now()).length;
  }

  async reset(key: string) {
    this.hits.delete(key);
  }

  /** Drops keys idle for a day so the map cannot grow without bound. */
  private sweep(now: number) {
    for (const [key, list] of this.hits) if (!list.length || list[list.length - 1]! < now - 86_400_000) this.hits.delete(key);
  }
}

const g = globalThis as { __qiaoRateLimitStore?: RateLimitStore };

export function rateLimitStore(): RateLimitStore {
  return (g.__qiaoRateLimitStore ??= new MemoryStore());
}

export function setRateLimitStore(store: RateLimitStore) {
  g.__qiaoRateLimitStore = store;
}

/** Throws the 429 envelope error when `key` is over its limit. */
export async function enforceRateLimit(key: string, limit: number, windowSeconds: number): Promise<void> {
  if (limit <= 0) return;
  if (!(await rateLimitStore().hit(key, limit, windowSeconds))) throw tooManyRequests("请求次数过多，请稍后再试！");
}
