// The request limits of a relay call (issue 26): the key's own (rpm, tpm, concurrency, a budget per
// day, week or month), the user's, the group's and the model's (lib/limits/rules.ts says which
// apply). A call is admitted against all of them at once (lib/limits/store.ts): in this process's
// memory, synchronously; on Redis when REDIS_CONN_STRING is set (one script, so every instance
// counts the same requests); in the children of `npm start` without Redis, in the primary's memory
// (lib/server/limits-ipc.ts). A Redis failure never refuses requests: the limits count in this
// process for a while and the log says so.
//
// Tokens per minute are reserved from the request's estimate (prompt plus its completion bound)
// and corrected at settlement to the tokens used; the budget reserves what the ledger reserves and
// is corrected to the quota charged. Every end of a call (answer, upstream error, client gone,
// timeout, a thrown error) passes through settle.ts, which releases the call's counters once.
import { randomBytes } from "node:crypto";
import { RedisCache, sharedCache } from "@/lib/cache/shared";
import { getLogDirectDb } from "@/lib/db/direct";
import { big } from "@/lib/db/num";
import { env } from "@/lib/env";
import { type KeyLimits, keyChecks, type LimitCaller, type LimitCheck, limitChecks } from "@/lib/limits/rules";
import {
  type AdmitAnswer,
  type AdmitAsk,
  type CounterSpec,
  type CounterState,
  type LimitStore,
  MemoryLimitStore,
  RedisLimitStore,
} from "@/lib/limits/store";
import { BUDGET_PERIOD_LABELS, type KeyLimitColumns, type KeyLimitUsage } from "@/lib/limits/types";
import type { OptionValues } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("limits");

/** After a Redis failure, how long the limits count in this process before trying Redis again. */
const REDIS_RETRY_MS = 30_000;
/**
 * A concurrency lease's life when its request never releases it (its process died): the relay's
 * own timeout and a minute, else half an hour (a stream may run that long).
 */
const LEASE_MS = env.RELAY_TIMEOUT > 0 ? (env.RELAY_TIMEOUT + 60) * 1000 : 30 * 60_000;
const MAX_SEEDS = 10_000;
/** consume rows (lib/logs/write.ts LOG_TYPE.consume): what a key was charged. */
const CONSUME_LOG_TYPE = 2;

type State = {
  local: MemoryLimitStore;
  /** The children of `npm start` without Redis: the primary's counters. */
  viaPrimary: LimitStore | null;
  redis: RedisLimitStore | null;
  redisDownUntil: number;
  /** Budget counters' seeds read from the logs, by counter key (one read per key and period). */
  seeds: Map<string, number>;
};

// One per process: the console's Next bundles and its server entry must share the store.
const state = processSingleton<State>("limits", () => ({
  local: new MemoryLimitStore(),
  viaPrimary: null,
  redis: null,
  redisDownUntil: 0,
  seeds: new Map(),
}));

/** A child of `npm start` without Redis: its limits are counted by the primary. */
export function countLimitsIn(store: LimitStore | null) {
  state.viaPrimary = store;
}

/** Tests: forget every counter and seed of this process. */
export function resetLocalLimits() {
  plans = new WeakMap();
  state.local = new MemoryLimitStore();
  state.seeds.clear();
  state.redisDownUntil = 0;
}

function redisFailed(error: unknown) {
  if (state.redisDownUntil === 0) {
    log.error({ err: error, retryInSeconds: REDIS_RETRY_MS / 1000 }, "limits: Redis failed; counting in this process");
  }
  state.redisDownUntil = Date.now() + REDIS_RETRY_MS;
}

/** Admits (or looks, with record false) in the store of the moment; says which store counted it. */
function admitIn(ask: AdmitAsk): { store: LimitStore; answer: AdmitAnswer | Promise<AdmitAnswer> } {
  const shared = sharedCache();
  if (!(shared instanceof RedisCache)) {
    const store = state.viaPrimary ?? state.local;
    return { store, answer: store.admit(ask) };
  }
  if (state.redisDownUntil !== 0) {
    if (Date.now() < state.redisDownUntil) return { store: state.local, answer: state.local.admit(ask) };
    state.redisDownUntil = 0;
    log.warn("limits: trying Redis again");
  }
  const redis = (state.redis ??= new RedisLimitStore(shared));
  const answer = redis.admit(ask);
  // A failed admission is counted here instead; the settlement must go where it was counted.
  const local = state.local;
  let store: LimitStore = redis;
  const counted = answer.catch((error) => {
    redisFailed(error);
    store = local;
    return local.admit(ask);
  });
  return {
    get store() {
      return store;
    },
    answer: counted,
  };
}

const leasePrefix = `${process.pid.toString(36)}.${randomBytes(3).toString("hex")}.`;
let leaseSeq = 0;

/** The admitted call's hold on its counters: released once, at settlement. */
export class CallLimits {
  private open = true;
  constructor(
    private readonly where: { store: LimitStore },
    private readonly counters: CounterSpec[],
    private readonly lease: string,
    private readonly tokens: number,
    private readonly quota: number,
    private readonly bucket: number,
    private readonly local: unknown,
    /** The x-ratelimit-* headers every answer of the call carries (null: no rpm or tpm limit). */
    readonly headers: Record<string, string> | null,
  ) {}

  /** Corrects tpm and the budget to what the call used and releases its concurrency lease; once. */
  release(tokensUsed: number, quotaUsed: number) {
    if (!this.open) return;
    this.open = false;
    if (!this.counters.some((c) => c.kind !== "rpm")) return;
    const settled = this.where.store.settle({
      counters: this.counters,
      bucket: this.bucket,
      tokensDelta: tokensUsed - this.tokens,
      quotaDelta: quotaUsed - this.quota,
      lease: this.lease,
      local: this.local,
    });
    if (settled instanceof Promise) settled.catch((err) => log.error({ err }, "limits: not released"));
  }
}

/** The counters of `checks`, with each budget's seed (read from the logs when not known yet). */
function counters(checks: LimitCheck[], nowMs: number): CounterSpec[] | Promise<CounterSpec[]> {
  let missing: Promise<void>[] | null = null;
  for (const c of checks) {
    if (c.budget && !state.seeds.has(c.key)) (missing ??= []).push(readSeed(c));
  }
  const build = () =>
    checks.map((c): CounterSpec => {
      if (!c.budget) return { kind: c.kind, key: c.key, limit: c.limit };
      return {
        kind: c.kind,
        key: c.key,
        limit: c.limit,
        seed: state.seeds.get(c.key) ?? 0,
        ttlMs: c.budget.end * 1000 - nowMs + 3_600_000,
      };
    });
  return missing ? Promise.all(missing).then(build) : build();
}

/** What the key spent since its period began, from its consume rows. */
async function readSeed(c: LimitCheck): Promise<void> {
  const db = await getLogDirectDb();
  const [row] = await db.query("SELECT COALESCE(SUM(quota), 0) AS used FROM logs WHERE token_id = ? AND type = ? AND created_at >= ?", [
    c.budget!.tokenId,
    CONSUME_LOG_TYPE,
    c.budget!.start,
  ]);
  if (state.seeds.size >= MAX_SEEDS) state.seeds.clear();
  state.seeds.set(c.key, Number(big(row?.used ?? 0)));
}

/** The request's token estimate for tpm: its prompt and, when it sets one, its completion bound. */
export function tokenEstimate(json: Record<string, unknown> | null, promptTokens: number): number {
  const max = json ? (json.max_completion_tokens ?? json.max_tokens ?? json.max_output_tokens) : undefined;
  return promptTokens + (typeof max === "number" && max > 0 ? Math.floor(max) : 0);
}

/**
 * Admits the call or throws the 429; null when no limit applies (then no store is asked). `tokens`:
 * the tpm estimate; `quota`: the ledger's reservation. A task submit (lib/tasks/submit.ts) passes
 * `tokens` null: it counts no tokens, so its tpm limits do not apply.
 */
export function admitCall(
  options: OptionValues,
  caller: LimitCaller,
  model: string,
  tokens: number | null,
  quota: number,
): CallLimits | null | Promise<CallLimits | null> {
  const now = Date.now();
  const planned = plan(options, caller, model, tokens === null, now);
  if (!planned) return null;
  const { checks, specs } = planned;
  const estimate = tokens ?? 0;
  return specs instanceof Promise ? specs.then((s) => admitWith(checks, s, estimate, quota)) : admitWith(checks, specs, estimate, quota);
}

/**
 * A call's checks and counters (none: `checks` empty), kept per key object (the relay's key cache
 * gives a new one when the key changes) and model, for the user, group and kind of call they were
 * worked out for; looked up without building a string, on every call.
 */
type Plan = {
  options: OptionValues;
  until: number;
  userId: number;
  group: string;
  tasks: boolean;
  checks: LimitCheck[];
  specs: CounterSpec[];
};
let plans = new WeakMap<object, Map<string, Plan>>();
const PLANS_PER_KEY = 64;

/** The checks of a call and their counters; null when no limit applies. `tasks`: a task submit (no tpm). */
function plan(
  options: OptionValues,
  caller: LimitCaller,
  model: string,
  tasks: boolean,
  now: number,
): { checks: LimitCheck[]; specs: CounterSpec[] | Promise<CounterSpec[]> } | null {
  const byKey = caller.key ? plans.get(caller.key) : undefined;
  const known = byKey?.get(model);
  if (
    known &&
    known.options === options &&
    now < known.until &&
    known.userId === caller.userId &&
    known.group === caller.group &&
    known.tasks === tasks
  ) {
    return known.checks.length > 0 ? known : null;
  }
  const all = limitChecks(options, caller, model, now);
  const checks = tasks ? all.filter((c) => c.kind !== "tpm") : all;
  const specs = checks.length > 0 ? counters(checks, now) : [];
  if (caller.key && !(specs instanceof Promise)) {
    let map = byKey;
    if (!map) plans.set(caller.key, (map = new Map()));
    if (map.size >= PLANS_PER_KEY) map.clear();
    let until = Number.POSITIVE_INFINITY;
    for (const c of checks) if (c.budget) until = Math.min(until, c.budget.end * 1000);
    map.set(model, { options, until, userId: caller.userId, group: caller.group, tasks, checks, specs });
  }
  return checks.length > 0 ? { checks, specs } : null;
}

function admitWith(checks: LimitCheck[], specs: CounterSpec[], tokens: number, quota: number): CallLimits | Promise<CallLimits> {
  const lease = leasePrefix + (++leaseSeq).toString(36);
  const where = admitIn({ counters: specs, tokens, quota, lease, leaseMs: LEASE_MS, record: true });
  const answer = where.answer;
  if (answer instanceof Promise) return answer.then((a) => decide(checks, specs, where, lease, tokens, quota, a));
  return decide(checks, specs, where, lease, tokens, quota, answer);
}

function decide(
  checks: LimitCheck[],
  specs: CounterSpec[],
  where: { store: LimitStore },
  lease: string,
  tokens: number,
  quota: number,
  answer: AdmitAnswer,
): CallLimits {
  const headers = rateHeaders(checks, answer.states);
  if (answer.refused >= 0) throw refusal(checks[answer.refused]!, answer.waitMs, headers);
  return new CallLimits(where, specs, lease, tokens, quota, answer.bucket, answer.local, headers);
}

const KIND_WORDS = { rpm: "每分钟请求数", tpm: "每分钟 token 数", concurrency: "并发请求数" } as const;

function scopeWords(c: LimitCheck): string {
  if (c.scope === "key") return "令牌";
  if (c.scope === "user") return "用户";
  if (c.scope === "group") return `分组 ${c.name} `;
  return `模型 ${c.name} `;
}

/** A call over one of its limits: the relay answers 429 in the caller's protocol with these headers. */
export class LimitRefusal extends Error {
  constructor(
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(message);
    this.name = "LimitRefusal";
  }
}

function refusal(c: LimitCheck, waitMs: number, headers: Record<string, string> | null): LimitRefusal {
  const wait = c.budget ? c.budget.end * 1000 - Date.now() : waitMs;
  const message = c.budget
    ? `令牌${BUDGET_PERIOD_LABELS[c.budget.period]}预算已用完 (${c.limit})`
    : `${scopeWords(c)}${KIND_WORDS[c.kind as keyof typeof KIND_WORDS]}已达上限 (${c.limit})`;
  return new LimitRefusal(message, { ...headers, "retry-after": String(Math.max(1, Math.ceil(wait / 1000))) });
}

/** OpenAI's duration format: "20ms", "1s", "1.5s", "6m0s", "1h2m3s". */
export function openAIDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const frac = total % 1000;
  let sec = String(Math.floor((total % 60_000) / 1000));
  if (frac > 0) {
    sec +=
      frac % 100 === 0
        ? `.${frac / 100}`
        : frac % 10 === 0
          ? `.${String(frac / 10).padStart(2, "0")}`
          : `.${String(frac).padStart(3, "0")}`;
  }
  sec += "s";
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

/** The header names of one kind, and its last duration written (calls a moment apart share it). */
type HeaderKind = { limit: string; remaining: string; reset: string; lastMs: number; lastText: string };
const headerKind = (word: string): HeaderKind => ({
  limit: `x-ratelimit-limit-${word}`,
  remaining: `x-ratelimit-remaining-${word}`,
  reset: `x-ratelimit-reset-${word}`,
  lastMs: -1,
  lastText: "",
});
const REQUEST_HEADERS = headerKind("requests");
const TOKEN_HEADERS = headerKind("tokens");
/** Limits' texts: a handful of distinct numbers, written on every answer. */
const limitTexts = new Map<number, string>();

function limitText(limit: number): string {
  let text = limitTexts.get(limit);
  if (text === undefined) {
    if (limitTexts.size >= 1024) limitTexts.clear();
    limitTexts.set(limit, (text = String(limit)));
  }
  return text;
}

/** The check of `kind` with the least room left; -1 when the call has none. */
function tightest(checks: LimitCheck[], states: CounterState[], kind: "rpm" | "tpm"): number {
  let best = -1;
  let room = 0;
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i]!;
    const s = states[i];
    if (c.kind !== kind || !s) continue;
    const left = c.limit - s.used;
    if (best < 0 || left < room) {
      best = i;
      room = left;
    }
  }
  return best;
}

function writeHeaders(headers: Record<string, string>, names: HeaderKind, check: LimitCheck, state: CounterState) {
  headers[names.limit] = limitText(check.limit);
  headers[names.remaining] = String(Math.max(0, check.limit - state.used));
  const ms = Math.max(0, Math.round(state.resetMs));
  if (ms !== names.lastMs) {
    names.lastMs = ms;
    names.lastText = openAIDuration(ms);
  }
  headers[names.reset] = names.lastText;
}

/** The x-ratelimit-* headers: the tightest rpm and tpm limits among the call's (written on every answer). */
export function rateHeaders(checks: LimitCheck[], states: CounterState[]): Record<string, string> | null {
  const rpm = tightest(checks, states, "rpm");
  const tpm = tightest(checks, states, "tpm");
  if (rpm < 0 && tpm < 0) return null;
  const headers: Record<string, string> = {};
  if (rpm >= 0) writeHeaders(headers, REQUEST_HEADERS, checks[rpm]!, states[rpm]!);
  if (tpm >= 0) writeHeaders(headers, TOKEN_HEADERS, checks[tpm]!, states[tpm]!);
  return headers;
}

const columnsToLimits = (t: KeyLimitColumns): KeyLimits => ({
  id: t.id,
  rpmLimit: t.rpm_limit,
  tpmLimit: t.tpm_limit,
  concurrencyLimit: t.concurrency_limit,
  budgetQuota: Number(t.budget_quota),
  budgetPeriod: t.budget_period,
});

/** A key's use now against its own limits, recording nothing (lib/limits/usage.ts). */
export async function readKeyUsage(token: KeyLimitColumns): Promise<KeyLimitUsage> {
  const now = Date.now();
  const checks = keyChecks(columnsToLimits(token), now);
  const usage: KeyLimitUsage = { rpm: null, tpm: null, concurrency: null, budget: null };
  if (checks.length === 0) return usage;
  const specs = await counters(checks, now);
  const answer = await admitIn({ counters: specs, tokens: 0, quota: 0, lease: "", leaseMs: 0, record: false }).answer;
  checks.forEach((c, i) => {
    const s = answer.states[i] ?? { used: 0, resetMs: 0 };
    if (c.kind === "rpm" || c.kind === "tpm") usage[c.kind] = { limit: c.limit, used: s.used, resetMs: s.resetMs };
    else if (c.kind === "concurrency") usage.concurrency = { limit: c.limit, used: s.used };
    else if (c.budget) {
      usage.budget = { limit: String(c.limit), used: String(s.used), period: c.budget.period, resetAt: c.budget.end };
    }
  });
  return usage;
}
