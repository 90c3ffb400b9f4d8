// The counters behind the request limits (lib/limits/engine.ts decides what to count). One call's
// counters are admitted together, all or nothing: a request the model's limit refuses leaves no
// hit in the key's window. Kinds:
//   rpm: a sliding 60 s log of request times (≤ limit of them are ever in the window): exact, and
//        says when a slot frees;
//   tpm: a sliding 60 s window of per-second buckets (≤ 60): admitted while the window's sum plus
//        the request's estimate fits; the estimate goes into the current second's bucket and is
//        corrected at settlement (into that same bucket, if it is still in the window);
//   concurrency: the leases of requests in flight, each with an expiry (a crashed process's
//        leases do not hold the limit for ever); admitted while fewer than the limit are live;
//   budget: quota spent in the key's current period (the counter's key names the period), created
//        on first use from a seed (what the logs say the key spent this period), admitted while
//        spent + the request's reservation fits.
// In memory (one process, or the primary of `npm start` for its children), synchronously; on Redis
// in one Lua script per admission (lib/cache/shared.ts's client), every counter in it.
import type { CounterKind } from "@/lib/limits/rules";

export const WINDOW_MS = 60_000;
const WINDOW_S = 60;

/** One counter of an admission. `seed`: a budget's spent quota when its counter does not exist yet. */
export type CounterSpec = { kind: CounterKind; key: string; limit: number; seed?: number; ttlMs?: number };

export type AdmitAsk = {
  counters: CounterSpec[];
  /** tpm: the request's token estimate; budget: its reservation. */
  tokens: number;
  quota: number;
  /** The request's concurrency lease (and its rpm log entries' unique member). */
  lease: string;
  leaseMs: number;
  /** false: only look (the console's usage), record nothing. */
  record: boolean;
};

/** A counter after the admission: what it holds and, for rpm and tpm, when it has room again / is empty. */
export type CounterState = { used: number; resetMs: number };

export type AdmitAnswer = {
  /** -1 when admitted, else the index of the counter that refused. */
  refused: number;
  /** Refused: milliseconds until the request would fit. */
  waitMs: number;
  states: CounterState[];
  /** The second (unix) whose tpm bucket holds the estimate. */
  bucket: number;
};

export type SettleAsk = {
  counters: CounterSpec[];
  bucket: number;
  tokensDelta: number;
  quotaDelta: number;
  lease: string;
};

export interface LimitStore {
  admit(ask: AdmitAsk): AdmitAnswer | Promise<AdmitAnswer>;
  settle(ask: SettleAsk): void | Promise<void>;
}

type Log = { times: number[]; head: number; expires: number };
type Buckets = { bySecond: Map<number, number>; expires: number };
type Leases = Map<string, number>;
type Budget = { used: number; expires: number };

/** Counters in this process's memory. Every method is synchronous: an admission is atomic. */
export class MemoryLimitStore implements LimitStore {
  private logs = new Map<string, Log>();
  private buckets = new Map<string, Buckets>();
  private leases = new Map<string, Leases>();
  private budgets = new Map<string, Budget>();
  private calls = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  private sweep(now: number) {
    if (++this.calls % 1000) return;
    for (const [k, v] of this.logs) if (v.expires <= now) this.logs.delete(k);
    for (const [k, v] of this.buckets) if (v.expires <= now) this.buckets.delete(k);
    for (const [k, v] of this.budgets) if (v.expires <= now) this.budgets.delete(k);
    for (const [k, v] of this.leases) {
      for (const [id, until] of v) if (until <= now) v.delete(id);
      if (v.size === 0) this.leases.delete(k);
    }
  }

  /** The log's times in the window (dropping older ones). */
  private log(key: string, now: number): Log {
    let log = this.logs.get(key);
    if (!log) {
      log = { times: [], head: 0, expires: 0 };
      this.logs.set(key, log);
    }
    const from = now - WINDOW_MS;
    while (log.head < log.times.length && log.times[log.head]! <= from) log.head++;
    if (log.head > 64 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    return log;
  }

  private window(key: string, nowS: number): { b: Buckets; sum: number } {
    let b = this.buckets.get(key);
    if (!b) {
      b = { bySecond: new Map(), expires: 0 };
      this.buckets.set(key, b);
    }
    let sum = 0;
    for (const [s, n] of b.bySecond) {
      if (s <= nowS - WINDOW_S) b.bySecond.delete(s);
      else sum += n;
    }
    return { b, sum };
  }

  private live(key: string, now: number): Leases {
    let l = this.leases.get(key);
    if (!l) {
      l = new Map();
      this.leases.set(key, l);
    }
    for (const [id, until] of l) if (until <= now) l.delete(id);
    return l;
  }

  private budget(c: CounterSpec, now: number): Budget {
    let b = this.budgets.get(c.key);
    if (!b || b.expires <= now) {
      b = { used: c.seed ?? 0, expires: now + (c.ttlMs ?? 86_400_000) };
      this.budgets.set(c.key, b);
    }
    return b;
  }

  admit(ask: AdmitAsk): AdmitAnswer {
    const now = this.clock();
    const nowS = Math.floor(now / 1000);
    this.sweep(now);
    const states: CounterState[] = [];
    let refused = -1;
    let waitMs = 0;
    // Look at every counter first; record only when all of them have room.
    for (let i = 0; i < ask.counters.length; i++) {
      const c = ask.counters[i]!;
      let used = 0;
      let wait = 0;
      let resetMs = 0;
      if (c.kind === "rpm") {
        const log = this.log(c.key, now);
        used = log.times.length - log.head;
        if (used > 0) resetMs = log.times[log.head]! + WINDOW_MS - now;
        if (used >= c.limit) wait = log.times[log.times.length - c.limit]! + WINDOW_MS - now;
      } else if (c.kind === "tpm") {
        const { b, sum } = this.window(c.key, nowS);
        used = sum;
        resetMs = sum > 0 ? (Math.max(...b.bySecond.keys()) + WINDOW_S) * 1000 - now : 0;
        if (sum + ask.tokens > c.limit) wait = tpmWait(b.bySecond, sum, ask.tokens, c.limit, now);
      } else if (c.kind === "concurrency") {
        used = this.live(c.key, now).size;
        if (used >= c.limit) wait = 1000;
      } else {
        used = this.budget(c, now).used;
        if (used + ask.quota > c.limit) wait = -1;
      }
      states.push({ used, resetMs });
      if (wait !== 0 && refused < 0 && ask.record) {
        refused = i;
        waitMs = wait;
      }
    }
    if (refused >= 0 || !ask.record) return { refused, waitMs, states, bucket: nowS };
    for (let i = 0; i < ask.counters.length; i++) {
      const c = ask.counters[i]!;
      const state = states[i]!;
      if (c.kind === "rpm") {
        const log = this.logs.get(c.key)!;
        log.times.push(now);
        log.expires = now + WINDOW_MS;
        if (state.used === 0) state.resetMs = WINDOW_MS;
        state.used++;
      } else if (c.kind === "tpm") {
        const b = this.buckets.get(c.key)!;
        b.bySecond.set(nowS, (b.bySecond.get(nowS) ?? 0) + ask.tokens);
        b.expires = now + WINDOW_MS;
        state.used += ask.tokens;
        state.resetMs = (nowS + WINDOW_S) * 1000 - now;
      } else if (c.kind === "concurrency") {
        this.leases.get(c.key)!.set(ask.lease, now + ask.leaseMs);
        state.used++;
      } else {
        this.budgets.get(c.key)!.used += ask.quota;
        state.used += ask.quota;
      }
    }
    return { refused, waitMs, states, bucket: nowS };
  }

  settle(ask: SettleAsk): void {
    const nowS = Math.floor(this.clock() / 1000);
    for (const c of ask.counters) {
      if (c.kind === "tpm" && ask.tokensDelta !== 0 && ask.bucket > nowS - WINDOW_S) {
        const b = this.buckets.get(c.key);
        const n = b?.bySecond.get(ask.bucket);
        if (b && n !== undefined) b.bySecond.set(ask.bucket, Math.max(0, n + ask.tokensDelta));
      } else if (c.kind === "concurrency") {
        this.leases.get(c.key)?.delete(ask.lease);
      } else if (c.kind === "budget" && ask.quotaDelta !== 0) {
        const b = this.budgets.get(c.key);
        if (b) b.used = Math.max(0, b.used + ask.quotaDelta);
      }
    }
  }
}

/** A refused tpm request: how long until enough of the window's oldest buckets have left it. */
function tpmWait(bySecond: Map<number, number>, sum: number, tokens: number, limit: number, now: number): number {
  if (tokens > limit) return WINDOW_MS;
  let left = sum;
  for (const s of [...bySecond.keys()].sort((a, b) => a - b)) {
    left -= bySecond.get(s)!;
    if (left + tokens <= limit) return Math.max(1, (s + WINDOW_S) * 1000 - now);
  }
  return WINDOW_MS;
}

// One script per admission. KEYS: the counters; ARGV: record (1/0), tokens, quota, lease, lease ms,
// then per counter its kind, limit, seed, ttl ms. Times are Redis's clock (TIME), the one every
// instance shares. Returns {refused (0-based, -1), wait ms, bucket second, used1, reset1, ...}.
// rpm: a sorted set of this window's request times (unique members); tpm: a hash of second →
// tokens; concurrency: a sorted set of leases scored by expiry; budget: a string counter.
export const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nowS = tonumber(t[1])
local record = ARGV[1] == '1'
local tokens = tonumber(ARGV[2])
local quota = tonumber(ARGV[3])
local lease = ARGV[4]
local leaseMs = tonumber(ARGV[5])
local refused = -1
local waitMs = 0
local used = {}
local reset = {}
for i = 1, #KEYS do
  local k = KEYS[i]
  local kind = ARGV[2 + i * 4]
  local limit = tonumber(ARGV[3 + i * 4])
  local u = 0
  local r = 0
  local w = 0
  if kind == 'rpm' then
    redis.call('ZREMRANGEBYSCORE', k, '-inf', now - 60000)
    u = redis.call('ZCARD', k)
    if u > 0 then r = tonumber(redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')[2]) + 60000 - now end
    if u >= limit then w = tonumber(redis.call('ZRANGE', k, u - limit, u - limit, 'WITHSCORES')[2]) + 60000 - now end
  elseif kind == 'tpm' then
    local all = redis.call('HGETALL', k)
    local secs = {}
    local newest = 0
    for j = 1, #all, 2 do
      local s = tonumber(all[j])
      local n = tonumber(all[j + 1])
      if s <= nowS - 60 then redis.call('HDEL', k, all[j])
      else
        u = u + n
        secs[#secs + 1] = {s, n}
        if s > newest then newest = s end
      end
    end
    if u > 0 then r = (newest + 60) * 1000 - now end
    if u + tokens > limit then
      w = 60000
      if tokens <= limit then
        table.sort(secs, function(a, b) return a[1] < b[1] end)
        local left = u
        for j = 1, #secs do
          left = left - secs[j][2]
          if left + tokens <= limit then w = math.max(1, (secs[j][1] + 60) * 1000 - now) break end
        end
      end
    end
  elseif kind == 'concurrency' then
    redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
    u = redis.call('ZCARD', k)
    if u >= limit then w = 1000 end
  else
    local seed = ARGV[4 + i * 4]
    redis.call('SET', k, seed, 'PX', ARGV[5 + i * 4], 'NX')
    u = tonumber(redis.call('GET', k))
    if u + quota > limit then w = -1 end
  end
  used[i] = u
  reset[i] = r
  if w ~= 0 and refused < 0 and record then
    refused = i - 1
    waitMs = w
  end
end
if refused < 0 and record then
  for i = 1, #KEYS do
    local k = KEYS[i]
    local kind = ARGV[2 + i * 4]
    if kind == 'rpm' then
      redis.call('ZADD', k, now, lease .. ':' .. i)
      redis.call('PEXPIRE', k, 60000)
      if used[i] == 0 then reset[i] = 60000 end
      used[i] = used[i] + 1
    elseif kind == 'tpm' then
      redis.call('HINCRBY', k, nowS, tokens)
      redis.call('PEXPIRE', k, 61000)
      used[i] = used[i] + tokens
      reset[i] = (nowS + 60) * 1000 - now
    elseif kind == 'concurrency' then
      redis.call('ZADD', k, now + leaseMs, lease)
      redis.call('PEXPIRE', k, leaseMs)
      used[i] = used[i] + 1
    else
      redis.call('INCRBY', k, quota)
      used[i] = used[i] + quota
    end
  end
end
local out = {refused, waitMs, nowS}
for i = 1, #KEYS do
  out[#out + 1] = used[i]
  out[#out + 1] = reset[i]
end
return out`;

// KEYS: the counters; ARGV: bucket second, tokens delta, quota delta, lease, then each counter's kind.
export const SETTLE_SCRIPT = `
local t = redis.call('TIME')
local nowS = tonumber(t[1])
local bucket = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
local quota = tonumber(ARGV[3])
for i = 1, #KEYS do
  local kind = ARGV[4 + i]
  local k = KEYS[i]
  if kind == 'tpm' and tokens ~= 0 and bucket > nowS - 60 and redis.call('HEXISTS', k, bucket) == 1 then
    local n = redis.call('HINCRBY', k, bucket, tokens)
    if n < 0 then redis.call('HSET', k, bucket, 0) end
  elseif kind == 'concurrency' then
    redis.call('ZREM', k, ARGV[4])
  elseif kind == 'budget' and quota ~= 0 and redis.call('EXISTS', k) == 1 then
    local n = redis.call('INCRBY', k, quota)
    if n < 0 then redis.call('SET', k, 0, 'KEEPTTL') end
  end
end
return 1`;

/** What runs a script on Redis (lib/cache/shared.ts RedisCache.runScript). */
export type ScriptRunner = { runScript(script: string, keys: string[], args: string[]): Promise<unknown> };

export class RedisLimitStore implements LimitStore {
  constructor(private readonly redis: ScriptRunner) {}

  async admit(ask: AdmitAsk): Promise<AdmitAnswer> {
    const args = [ask.record ? "1" : "0", String(ask.tokens), String(ask.quota), ask.lease, String(ask.leaseMs)];
    for (const c of ask.counters) args.push(c.kind, String(c.limit), String(c.seed ?? 0), String(c.ttlMs ?? 86_400_000));
    const out = (await this.redis.runScript(
      ADMIT_SCRIPT,
      ask.counters.map((c) => c.key),
      args,
    )) as number[];
    const states: CounterState[] = [];
    for (let i = 0; i < ask.counters.length; i++) states.push({ used: Number(out[3 + i * 2]), resetMs: Number(out[4 + i * 2]) });
    return { refused: Number(out[0]), waitMs: Number(out[1]), bucket: Number(out[2]), states };
  }

  async settle(ask: SettleAsk): Promise<void> {
    const args = [String(ask.bucket), String(ask.tokensDelta), String(ask.quotaDelta), ask.lease, ...ask.counters.map((c) => c.kind)];
    await this.redis.runScript(
      SETTLE_SCRIPT,
      ask.counters.map((c) => c.key),
      args,
    );
  }
}
