// Short-lived state every instance must agree on (e-mail codes, reset tokens, send limits,
// reminder windows): Redis when REDIS_CONN_STRING is set, else this process's memory (one
// instance; its processes share it only through what they each hold, so a multi-process start
// without Redis keeps such state per process). Every write carries a TTL.
import { env } from "@/lib/env";
import { RedisClient } from "@/lib/cache/redis";

export interface SharedCache {
  /** Stores `value` for `ttlSeconds`; with `onlyIfAbsent`, only when the key is free. Says whether it was stored. */
  set(key: string, value: string, ttlSeconds: number, onlyIfAbsent?: boolean): Promise<boolean>;
  get(key: string): Promise<string | null>;
  /** Deletes the key only when it holds `expected`, atomically: a value is taken once. */
  takeIf(key: string, expected: string): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Adds one to a counter that expires `ttlSeconds` after its first hit; returns the new count. */
  incr(key: string, ttlSeconds: number): Promise<number>;
}

const PREFIX = "qiao:";

export class MemoryCache implements SharedCache {
  private entries = new Map<string, { value: string; expires: number }>();
  private writes = 0;

  private live(key: string): { value: string; expires: number } | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep() {
    if (++this.writes % 1000) return;
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }

  async set(key: string, value: string, ttlSeconds: number, onlyIfAbsent = false) {
    this.sweep();
    if (onlyIfAbsent && this.live(key)) return false;
    this.entries.set(key, { value, expires: Date.now() + ttlSeconds * 1000 });
    return true;
  }

  async get(key: string) {
    return this.live(key)?.value ?? null;
  }

  async takeIf(key: string, expected: string) {
    if (this.live(key)?.value !== expected) return false;
    this.entries.delete(key);
    return true;
  }

  async del(key: string) {
    this.entries.delete(key);
  }

  async incr(key: string, ttlSeconds: number) {
    this.sweep();
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: "1", expires: Date.now() + ttlSeconds * 1000 });
      return 1;
    }
    entry.value = String(Number(entry.value) + 1);
    return Number(entry.value);
  }
}

// Compare-and-delete and a counter whose TTL starts at its first hit, each one atomic script.
const TAKE_IF = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const INCR_TTL = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n";

export class RedisCache implements SharedCache {
  constructor(private readonly client: RedisClient) {}

  async set(key: string, value: string, ttlSeconds: number, onlyIfAbsent = false) {
    const args: (string | number)[] = ["SET", PREFIX + key, value, "EX", Math.max(1, Math.ceil(ttlSeconds))];
    if (onlyIfAbsent) args.push("NX");
    return (await this.client.command(...args)) === "OK";
  }

  async get(key: string) {
    const value = await this.client.command("GET", PREFIX + key);
    return typeof value === "string" ? value : null;
  }

  async takeIf(key: string, expected: string) {
    return (await this.client.command("EVAL", TAKE_IF, 1, PREFIX + key, expected)) === 1;
  }

  async del(key: string) {
    await this.client.command("DEL", PREFIX + key);
  }

  async incr(key: string, ttlSeconds: number) {
    return Number(await this.client.command("EVAL", INCR_TTL, 1, PREFIX + key, Math.max(1, Math.ceil(ttlSeconds))));
  }
}

const g = globalThis as { __qiaoSharedCache?: SharedCache };

/** The process's shared cache: Redis when REDIS_CONN_STRING is set, else memory. */
export function sharedCache(): SharedCache {
  return (g.__qiaoSharedCache ??= env.REDIS_CONN_STRING ? new RedisCache(new RedisClient(env.REDIS_CONN_STRING)) : new MemoryCache());
}

/** Tests: run against another store. */
export function setSharedCache(cache: SharedCache) {
  g.__qiaoSharedCache = cache;
}
