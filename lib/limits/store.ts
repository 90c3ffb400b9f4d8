// The counters behind the request limits (lib/limits/engine.ts decides what to count). One call's
// counters are admitted together, all or nothing: a request the model's limit refuses leaves no
// hit in the key's window. Kinds:
//   rpm: a sliding 60 s log of request times (≤ limit of them are ever in the window), kept as
//        runs (a millisecond and how many requests came in it): exact, and says when a slot frees;
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
  /** Admitted in a relay worker's own shares (lib/limits/grants.ts): what it took, for the settlement. */
  local?: unknown;
};

export type SettleAsk = {
  counters: CounterSpec[];
  bucket: number;
  tokensDelta: number;
  quotaDelta: number;
  lease: string;
  /** The admission's `local`, when a worker's shares admitted it. */
  local?: unknown;
};

export interface LimitStore {
  admit(ask: AdmitAsk): AdmitAnswer | Promise<AdmitAnswer>;
  settle(ask: SettleAsk): void | Promise<void>;
}

/**
 * rpm's log: the window's request times as runs, oldest first (`times[k]`, a millisecond); `ends[k]`
 * counts the requests of every run up to and including k since the arrays began, so the window's
 * count is one subtraction and the n-th request's time a binary search. Runs before `head` have
 * left the window. At a high rate many requests share a millisecond: a window holds at most 60 000
 * runs however many requests it counts.
 */
type Log = { times: number[]; ends: number[]; head: number; expires: number };
type Buckets = { bySecond: Map<number, number>; expires: number };
/** Lease id → its expiry and weight (1 for a call; a worker's holding of granted slots may be more). */
type Leases = Map<string, { until: number; n: number }>;
type Budget = { used: number; expires: number };

/**
 * A share of a counter's headroom handed to one relay worker to admit in its own memory
 * (lib/limits/grants.ts): rpm requests, tpm tokens or budget quota, usable until `until`; or, for
 * concurrency, more slots added to the worker's holding. `used`/`resetMs`: the counter after the grant.
 */
export type Grant = { id: string; n: number; until: number; used: number; resetMs: number };

/** What a worker asks for: per counter, the units it would like (0: none) and the least worth having. */
export type GrantAsk = { owner: string; counters: CounterSpec[]; want: number[]; min: number[] };

/**
 * A worker gives a grant back: what it admitted with it (rpm: the request times; tpm: tokens per
 * second; budget: quota spent), replacing the reservation; or, for concurrency, slots it no longer holds.
 * rpm's times go as runs, `[time, count, time, count, …]` in the order admitted: at a high rate
 * many calls share a millisecond, and the runs are what crosses the IPC channel and gets merged.
 */
export type GrantReport =
  | { id: string; key: string; kind: "rpm"; runs: number[] }
  | { id: string; key: string; kind: "tpm"; bySecond: [number, number][] }
  | { id: string; key: string; kind: "budget"; spent: number }
  | { owner: string; key: string; kind: "concurrency"; returned: number };

/** How long a worker may admit with a grant. Its rpm reservation holds the window this much longer. */
export const GRANT_MS = 1000;

/** A reservation the primary holds for a grant until it is reported (or, unreported, runs out). */
type Reservation = { owner: string; n: number; second: number; until: number };

/** Counters in this process's memory. Every method is synchronous: an admission is atomic. */
export class MemoryLimitStore implements LimitStore {
  private logs = new Map<string, Log>();
  private buckets = new Map<string, Buckets>();
  private leases = new Map<string, Leases>();
  private budgets = new Map<string, Budget>();
  /** Grants not reported yet, by counter key, then grant id. */
  private reserved = new Map<string, Map<string, Reservation>>();
  private grants = 0;
  private calls = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  private sweep(now: number) {
    if (++this.calls % 1000) return;
    for (const [k, v] of this.logs) if (v.expires <= now) this.logs.delete(k);
    for (const [k, v] of this.buckets) if (v.expires <= now) this.buckets.delete(k);
    for (const [k, v] of this.budgets) if (v.expires <= now) this.budgets.delete(k);
    for (const [k, v] of this.leases) {
      for (const [id, l] of v) if (l.until <= now) v.delete(id);
      if (v.size === 0) this.leases.delete(k);
    }
    for (const [k, v] of this.reserved) {
      for (const [id, r] of v) if (r.until <= now) v.delete(id);
      if (v.size === 0) this.reserved.delete(k);
    }
  }

  /** The log's runs in the window (dropping older ones). */
  private log(key: string, now: number): Log {
    let log = this.logs.get(key);
    if (!log) {
      log = { times: [], ends: [], head: 0, expires: 0 };
      this.logs.set(key, log);
    }
    const from = now - WINDOW_MS;
    while (log.head < log.times.length && log.times[log.head]! <= from) log.head++;
    if (log.head > 64 && log.head * 2 > log.times.length) {
      const before = log.ends[log.head - 1]!;
      log.times = log.times.slice(log.head);
      log.ends = log.ends.slice(log.head);
      for (let k = 0; k < log.ends.length; k++) log.ends[k]! -= before;
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

  private live(key: string, now: number): { leases: Leases; count: number } {
    let leases = this.leases.get(key);
    if (!leases) {
      leases = new Map();
      this.leases.set(key, leases);
    }
    let count = 0;
    for (const [id, l] of leases) {
      if (l.until <= now) leases.delete(id);
      else count += l.n;
    }
    return { leases, count };
  }

  /** rpm: the requests granted to workers and not reported yet. */
  private pending(key: string, now: number): number {
    const r = this.reserved.get(key);
    if (!r) return 0;
    let n = 0;
    for (const [id, x] of r) {
      if (x.until <= now) r.delete(id);
      else n += x.n;
    }
    return n;
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
        const logged = loggedCount(log);
        const granted = this.pending(c.key, now);
        used = logged + granted;
        if (logged > 0) resetMs = log.times[log.head]! + WINDOW_MS - now;
        else if (granted > 0) resetMs = WINDOW_MS;
        if (used >= c.limit) {
          // Granted requests leave the count once their worker reports them (within GRANT_MS).
          const i = logged - (c.limit - granted);
          wait = i < logged ? Math.max(1, nthTime(log, i) + WINDOW_MS - now) : GRANT_MS;
        }
      } else if (c.kind === "tpm") {
        const { b, sum } = this.window(c.key, nowS);
        used = sum;
        resetMs = sum > 0 ? (Math.max(...b.bySecond.keys()) + WINDOW_S) * 1000 - now : 0;
        if (sum + ask.tokens > c.limit) wait = tpmWait(b.bySecond, sum, ask.tokens, c.limit, now);
      } else if (c.kind === "concurrency") {
        used = this.live(c.key, now).count;
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
        addRun(log, now, 1);
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
        this.leases.get(c.key)!.set(ask.lease, { until: now + ask.leaseMs, n: 1 });
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

  /**
   * Hands `ask.owner` a share of each counter's headroom (one call's atomicity is not needed: each
   * grant stands alone). At most 1/GRANT_SHARE of what is left, so workers never hold the last of
   * a limit between them; none below `min`: near its limit a counter is admitted call by call.
   */
  grant(ask: GrantAsk): (Grant | null)[] {
    const now = this.clock();
    const nowS = Math.floor(now / 1000);
    return ask.counters.map((c, i): Grant | null => {
      const want = ask.want[i] ?? 0;
      if (want <= 0) return null;
      const [state] = this.admit({ counters: [c], tokens: 0, quota: 0, lease: "", leaseMs: 0, record: false }).states;
      const used = state?.used ?? 0;
      const n = Math.min(want, Math.floor((c.limit - used) / GRANT_SHARE));
      if (n < Math.max(1, ask.min[i] ?? 1)) return null;
      const id = `${ask.owner}#${(++this.grants).toString(36)}`;
      const until = now + GRANT_MS;
      if (c.kind === "concurrency") {
        const holding = this.live(c.key, now).leases;
        const lease = holdingLease(ask.owner);
        holding.set(lease, { until: now + HOLDING_MS, n: (holding.get(lease)?.n ?? 0) + n });
        return { id, n, until, used: used + n, resetMs: 0 };
      }
      let reserved = this.reserved.get(c.key);
      if (!reserved) {
        reserved = new Map();
        this.reserved.set(c.key, reserved);
      }
      if (c.kind === "rpm") {
        // Held until the worker reports the real times, or a window after the grant's last use.
        reserved.set(id, { owner: ask.owner, n, second: nowS, until: until + WINDOW_MS });
        return { id, n, until, used: used + n, resetMs: state?.resetMs || WINDOW_MS };
      }
      if (c.kind === "tpm") {
        const { b } = this.window(c.key, nowS);
        b.bySecond.set(nowS, (b.bySecond.get(nowS) ?? 0) + n);
        b.expires = now + WINDOW_MS;
        reserved.set(id, { owner: ask.owner, n, second: nowS, until: now + WINDOW_MS });
        return { id, n, until, used: used + n, resetMs: (nowS + WINDOW_S) * 1000 - now };
      }
      this.budget(c, now).used += n;
      reserved.set(id, { owner: ask.owner, n, second: nowS, until: now + (c.ttlMs ?? 86_400_000) });
      return { id, n, until, used: used + n, resetMs: 0 };
    });
  }

  /** A worker's grants come back: their reservations become what the worker really admitted. */
  report(reports: GrantReport[]): void {
    const now = this.clock();
    const nowS = Math.floor(now / 1000);
    for (const r of reports) {
      if (r.kind === "concurrency") {
        const leases = this.leases.get(r.key);
        const lease = holdingLease(r.owner);
        const held = leases?.get(lease);
        if (!leases || !held) continue;
        held.n -= r.returned;
        held.until = now + HOLDING_MS;
        if (held.n <= 0) leases.delete(lease);
        continue;
      }
      const reserved = this.reserved.get(r.key)?.get(r.id);
      if (!reserved) continue;
      this.reserved.get(r.key)!.delete(r.id);
      if (r.kind === "rpm") {
        const log = this.log(r.key, now);
        mergeRuns(log, runsAfter(r.runs, now - WINDOW_MS));
        log.expires = Math.max(log.expires, now + WINDOW_MS);
      } else if (r.kind === "tpm") {
        const b = this.buckets.get(r.key);
        if (!b) continue;
        const add = (s: number, n: number) => {
          if (s <= nowS - WINDOW_S) return;
          b.bySecond.set(s, Math.max(0, (b.bySecond.get(s) ?? 0) + n));
        };
        add(reserved.second, -reserved.n);
        for (const [s, n] of r.bySecond) add(s, n);
      } else {
        const b = this.budgets.get(r.key);
        if (b) b.used = Math.max(0, b.used + r.spent - reserved.n);
      }
    }
  }

  /** The owners other than `except` that hold grants on `key` (the primary asks them back near a limit). */
  holders(key: string, except: string): string[] {
    const owners = new Set<string>();
    for (const r of this.reserved.get(key)?.values() ?? []) if (r.owner !== except) owners.add(r.owner);
    for (const id of this.leases.get(key)?.keys() ?? []) {
      if (id.startsWith(HOLDING_PREFIX) && id !== holdingLease(except)) owners.add(id.slice(HOLDING_PREFIX.length));
    }
    return [...owners];
  }

  /**
   * A worker is gone: the slots it held end with its calls. Its unreported rpm, tpm and budget
   * reservations stay (what it admitted with them is not known) until they run out, unless
   * `unused`: it stopped cleanly after reporting every share it had.
   */
  forget(owner: string, unused = false): void {
    const lease = holdingLease(owner);
    for (const [k, leases] of this.leases) {
      leases.delete(lease);
      if (leases.size === 0) this.leases.delete(k);
    }
    if (!unused) return;
    const now = this.clock();
    const nowS = Math.floor(now / 1000);
    for (const [key, reserved] of this.reserved) {
      for (const [id, r] of reserved) {
        if (r.owner !== owner) continue;
        reserved.delete(id);
        const b = this.buckets.get(key);
        const n = b?.bySecond.get(r.second);
        if (b && n !== undefined && r.second > nowS - WINDOW_S) b.bySecond.set(r.second, Math.max(0, n - r.n));
        const budget = this.budgets.get(key);
        if (budget) budget.used = Math.max(0, budget.used - r.n);
      }
      if (reserved.size === 0) this.reserved.delete(key);
    }
  }
}

/** A grant is at most this part of a counter's headroom. */
const GRANT_SHARE = 8;
/** A worker's holding of concurrency slots lives this long without news from it (it says something every minute). */
const HOLDING_MS = 5 * 60_000;
const HOLDING_PREFIX = "hold:";
const holdingLease = (owner: string) => HOLDING_PREFIX + owner;

/** The requests in the log's window. */
function loggedCount(log: Log): number {
  const last = log.times.length - 1;
  if (last < log.head) return 0;
  return log.ends[last]! - (log.head > 0 ? log.ends[log.head - 1]! : 0);
}

/** The time of the window's `i`-th request (0: the oldest); `i` below `loggedCount`. */
function nthTime(log: Log, i: number): number {
  const want = (log.head > 0 ? log.ends[log.head - 1]! : 0) + i + 1;
  let lo = log.head;
  let hi = log.times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log.ends[mid]! < want) lo = mid + 1;
    else hi = mid;
  }
  return log.times[lo]!;
}

/** `n` requests at `time`, after the log's last run (joining it when it is the same millisecond). */
function addRun(log: Log, time: number, n: number) {
  const last = log.times.length - 1;
  const ended = last >= 0 ? log.ends[last]! : 0;
  if (last >= log.head && log.times[last] === time) log.ends[last] = ended + n;
  else {
    log.times.push(time);
    log.ends.push(ended + n);
  }
}

/**
 * Puts a worker's reported runs in their places in the log. They are the last second's, so they
 * belong near its end: only the log's runs from the first of them on are merged again, never the
 * whole window.
 */
function mergeRuns(log: Log, add: number[]) {
  if (add.length === 0) return;
  let lo = log.head;
  let hi = log.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log.times[mid]! <= add[0]!) lo = mid + 1;
    else hi = mid;
  }
  const tailTimes = log.times.splice(lo);
  const tailEnds = log.ends.splice(lo);
  let ended = lo > 0 ? log.ends[lo - 1]! : 0;
  let i = 0;
  let j = 0;
  while (i < tailTimes.length || j < add.length) {
    if (j >= add.length || (i < tailTimes.length && tailTimes[i]! <= add[j]!)) {
      const n = tailEnds[i]! - ended;
      ended = tailEnds[i]!;
      addRun(log, tailTimes[i++]!, n);
    } else {
      addRun(log, add[j]!, add[j + 1]!);
      j += 2;
    }
  }
}

/**
 * A report's runs later than `after`, `[time, count, …]` in time order: a worker admits in clock
 * order, so they come sorted, and are sorted here only when the clock went back meanwhile.
 */
function runsAfter(runs: number[], after: number): number[] {
  const out: number[] = [];
  let sorted = true;
  for (let i = 0; i + 1 < runs.length; i += 2) {
    const t = runs[i]!;
    const n = runs[i + 1]!;
    if (!(t > after) || !(n > 0)) continue;
    if (out.length > 0 && t < out[out.length - 2]!) sorted = false;
    out.push(t, n);
  }
  if (sorted) return out;
  const pairs: [number, number][] = [];
  for (let i = 0; i < out.length; i += 2) pairs.push([out[i]!, out[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  return pairs.flat();
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
