// Short-lived state every instance must agree on (e-mail codes, reset tokens, send limits,
// reminder windows, rate-limit windows): Redis when REDIS_CONN_STRING is set, else this process's
// memory (one instance; its processes share it only through what they each hold, so a
// multi-process start without Redis keeps such state per process). Every write carries a TTL.
import { createHash, randomBytes } from "node:crypto";
import { env } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";

export interface SharedCache {
  /** Stores `value` for `ttlSeconds`; with `onlyIfAbsent`, only when the key is free. Says whether it was stored. */
  set(key: string, value: string, ttlSeconds: number, onlyIfAbsent?: boolean): Promise<boolean>;
  get(key: string): Promise<string | null>;
  /** Deletes the key only when it holds `expected`, atomically: a value is taken once. */
  takeIf(key: string, expected: string): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Adds one to a counter that expires `ttlSeconds` after its first hit; returns the new count. */
  incr(key: string, ttlSeconds: number): Promise<number>;
  /** Sliding window: records a hit at now unless `limit` hits fall in the last `windowSeconds`; says whether it did. */
  hitWindow(key: string, limit: number, windowSeconds: number): Promise<boolean>;
  /** Sliding window: the hits in the last `windowSeconds`, recording none. */
  countWindow(key: string, windowSeconds: number): Promise<number>;
  /**
   * A sliding log of the last `limit` hit times (a limit that must say when a slot frees): 0 when
   * fewer than `limit` hits fall in the last `windowMs`, else the milliseconds until the oldest of
   * them leaves it. `record`: "fits" records a hit now when it fits; "always" records one whatever
   * the count (a hit counted after the fact); "no" only looks. O(1) per call; keeps ≤ `limit` times.
   */
  logHit(key: string, limit: number, windowMs: number, record: HitRecord): Promise<number>;
}

export type HitRecord = "no" | "fits" | "always";

/** The times of a key's last hits: oldest first from `head` once `limit` are kept (a ring). */
type HitLog = { times: number[]; head: number; limit: number; expires: number };

/** The log's times in order, the last `limit` of them (a limit changed since they were kept). */
function resized(log: HitLog, limit: number): HitLog {
  const inOrder = [...log.times.slice(log.head), ...log.times.slice(0, log.head)];
  return { times: inOrder.slice(-limit), head: 0, limit, expires: log.expires };
}

const PREFIX = "qiao:";

export class MemoryCache implements SharedCache {
  private entries = new Map<string, { value: string; expires: number }>();
  /** Sliding windows: hit times, kept until the last hit's window ends. */
  private windows = new Map<string, { hits: number[]; expires: number }>();
  private logs = new Map<string, HitLog>();
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
    for (const [key, entry] of this.windows) if (entry.expires <= now) this.windows.delete(key);
    for (const [key, log] of this.logs) if (log.expires <= now) this.logs.delete(key);
  }

  private recent(key: string, windowSeconds: number, now: number): number[] {
    const from = now - windowSeconds * 1000;
    return (this.windows.get(key)?.hits ?? []).filter((t) => t > from);
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
    this.windows.delete(key);
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

  async hitWindow(key: string, limit: number, windowSeconds: number) {
    this.sweep();
    const now = Date.now();
    const hits = this.recent(key, windowSeconds, now);
    if (hits.length >= limit) return false;
    hits.push(now);
    this.windows.set(key, { hits, expires: now + windowSeconds * 1000 });
    return true;
  }

  async countWindow(key: string, windowSeconds: number) {
    return this.recent(key, windowSeconds, Date.now()).length;
  }

  async logHit(key: string, limit: number, windowMs: number, record: HitRecord) {
    const now = Date.now();
    let log = this.logs.get(key);
    // A log whose every hit has left the window starts afresh (and gives its memory back).
    if (!log || log.expires <= now) log = { times: [], head: 0, limit, expires: 0 };
    else if (log.limit !== limit) log = resized(log, limit);
    const full = log.times.length >= limit;
    const oldest = full ? log.times[log.head]! : 0;
    const wait = full && oldest + windowMs > now ? oldest + windowMs - now : 0;
    if (record === "always" || (record === "fits" && wait === 0)) {
      this.sweep();
      if (full) {
        log.times[log.head] = now;
        log.head = (log.head + 1) % limit;
      } else log.times.push(now);
      log.expires = now + windowMs;
      this.logs.set(key, log);
    }
    return wait;
  }
}

// Each an atomic script: compare-and-delete; a counter whose TTL starts at its first hit; a sliding
// window as a sorted set of hit times (a unique member per hit), dropped with its last hit's window.
const TAKE_IF = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const INCR_TTL = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n";
// Hit times are Redis's clock (TIME, in milliseconds), the one every instance shares.
const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";
const HIT_WINDOW = `${NOW_MS} local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1`;
// A sliding log as a list of hit times, newest first, trimmed to the limit: the limit-th newest
// hit says whether another fits and, if not, when it will.
const LOG_HIT = `${NOW_MS} local window = tonumber(ARGV[1]) local limit = tonumber(ARGV[2])
local wait = 0
if redis.call('LLEN', KEYS[1]) >= limit then
  local oldest = tonumber(redis.call('LINDEX', KEYS[1], limit - 1))
  if oldest and oldest + window > now then wait = oldest + window - now end
end
if ARGV[3] == 'always' or (ARGV[3] == 'fits' and wait == 0) then
  redis.call('LPUSH', KEYS[1], now)
  redis.call('LTRIM', KEYS[1], 0, limit - 1)
  redis.call('PEXPIRE', KEYS[1], window)
end
return wait`;
const COUNT_WINDOW = `${NOW_MS} return redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(ARGV[1])), '+inf')`;

/** The SHA1 of each script run by runScript, computed once. */
const scriptShas: Record<string, string> = {};

const CONNECT_TIMEOUT_MS = 3000;
/** After a dropped connection: this many reconnection tries (commands wait meanwhile), then commands fail. */
const RECONNECT_TRIES = 4;

const seconds = (ttl: number) => Math.max(1, Math.ceil(ttl));

/** A connected client (the package loads here, at the first command). */
async function connect(url: string, name?: string) {
  const { createClient } = await import("redis");
  let ready = false;
  const client = createClient({
    url,
    name,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Before the first connection, and after the tries, the error: the commands waiting reject.
      reconnectStrategy: (retries, cause) => (ready && retries < RECONNECT_TRIES ? 50 * 2 ** retries : cause),
    },
  });
  // Failures reach the callers as rejected commands; the event only must not go unheard.
  client.on("error", () => {});
  await client.connect();
  ready = true;
  // The cache must never keep a process alive.
  client.unref();
  return client;
}

type Client = Awaited<ReturnType<typeof connect>>;

/**
 * The shared cache on Redis through node-redis. Nothing connects (nor loads the package) before the
 * first command. A dropped connection is retried a few times while commands wait; past that, or
 * when the first connection fails, the commands in flight reject and the next one connects anew.
 */
export class RedisCache implements SharedCache {
  private client: Promise<Client> | null = null;
  private seq = 0;

  private readonly prefix: string;
  private readonly name?: string;

  /** `prefix` (tests) replaces the "qiao:" every key starts with; `name` is the connection's CLIENT SETNAME. */
  constructor(
    private readonly url: string,
    options: { prefix?: string; name?: string } = {},
  ) {
    this.prefix = options.prefix ?? PREFIX;
    this.name = options.name;
    const { protocol } = new URL(url);
    if (protocol !== "redis:" && protocol !== "rediss:") throw new Error("REDIS_CONN_STRING must be a redis:// or rediss:// URL");
  }

  private async redis(): Promise<Client> {
    const pending = this.client;
    if (pending) {
      const client = await pending.catch(() => null);
      if (client?.isOpen) return client;
      // Another command may have begun a new connection meanwhile.
      if (this.client !== pending) return this.redis();
    }
    const opening = connect(this.url, this.name);
    this.client = opening;
    opening.catch(() => {
      if (this.client === opening) this.client = null;
    });
    return opening;
  }

  async set(key: string, value: string, ttlSeconds: number, onlyIfAbsent = false) {
    const expiration = { type: "EX", value: seconds(ttlSeconds) } as const;
    const options = onlyIfAbsent ? { expiration, condition: "NX" as const } : { expiration };
    return (await (await this.redis()).set(this.prefix + key, value, options)) === "OK";
  }

  async get(key: string) {
    const value = await (await this.redis()).get(this.prefix + key);
    return typeof value === "string" ? value : null;
  }

  async takeIf(key: string, expected: string) {
    return (await (await this.redis()).eval(TAKE_IF, { keys: [this.prefix + key], arguments: [expected] })) === 1;
  }

  async del(key: string) {
    await (await this.redis()).del(this.prefix + key);
  }

  async incr(key: string, ttlSeconds: number) {
    return Number(await (await this.redis()).eval(INCR_TTL, { keys: [this.prefix + key], arguments: [String(seconds(ttlSeconds))] }));
  }

  async hitWindow(key: string, limit: number, windowSeconds: number) {
    // Each hit its own member: two hits in one millisecond count twice.
    const member = `${Date.now()}:${process.pid}:${++this.seq}:${randomBytes(4).toString("hex")}`;
    const args = [String(Math.ceil(windowSeconds * 1000)), String(limit), member];
    return (await (await this.redis()).eval(HIT_WINDOW, { keys: [this.prefix + key], arguments: args })) === 1;
  }

  async countWindow(key: string, windowSeconds: number) {
    const args = [String(Math.ceil(windowSeconds * 1000))];
    return Number(await (await this.redis()).eval(COUNT_WINDOW, { keys: [this.prefix + key], arguments: args }));
  }

  async logHit(key: string, limit: number, windowMs: number, record: HitRecord) {
    const args = [String(Math.ceil(windowMs)), String(limit), record];
    return Number(await (await this.redis()).eval(LOG_HIT, { keys: [this.prefix + key], arguments: args }));
  }

  /**
   * Runs a Lua script by its SHA (EVALSHA: the text crosses the wire once per connection), loading
   * it when Redis does not know it. `keys` get the cache's prefix.
   */
  async runScript(script: string, keys: string[], args: string[]): Promise<unknown> {
    const client = await this.redis();
    const sha = (scriptShas[script] ??= createHash("sha1").update(script).digest("hex"));
    const options = { keys: keys.map((k) => this.prefix + k), arguments: args };
    try {
      return await client.evalSha(sha, options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return client.eval(script, options);
    }
  }

  /** PING: resolves once Redis answers (readiness, lib/server/health.ts); rejects as any command would. */
  async ping(): Promise<void> {
    await (await this.redis()).ping();
  }

  /** Closes the connection (tests; a process otherwise keeps it). */
  async close() {
    const client = await this.client?.catch(() => null);
    this.client = null;
    if (client?.isOpen) client.destroy();
  }
}

const slot = processSingleton<{ cache?: SharedCache }>("sharedCache", () => ({}));

/** The process's shared cache: Redis when REDIS_CONN_STRING is set, else memory. */
export function sharedCache(): SharedCache {
  return (slot.cache ??= env.REDIS_CONN_STRING ? new RedisCache(env.REDIS_CONN_STRING) : new MemoryCache());
}

/** Tests: run against another store. */
export function setSharedCache(cache: SharedCache) {
  slot.cache = cache;
}
