// The circuit breaker of a routing target: a channel, or one key of a multi-key channel
// (breakerTarget). Closed: requests pass and failures that say the upstream is down (timeouts,
// 5xx, connection errors, unreadable answers; see countsAsOutage) are counted; ChannelBreakerFailures
// of them within ChannelBreakerWindowSeconds open it. Open: skipped by pickChannel until the
// cool-down (ChannelBreakerCooldownSeconds) ends. Then one trial request is let through (half-open;
// the others still skip it): its success closes the breaker, its failure opens it for a fresh
// cool-down. A success in the closed state clears the count.
//
// Failures are counted in the process that saw them; an opening or closing is published on the
// cache bus (lib/cache/bus.ts), so the other processes of the instance (lib/server/ipc.ts) and the
// other instances (through Redis, lib/cache/redis-bus.ts) skip the target as well. Each process runs
// its own half-open trial, so after a cool-down one trial per process may reach the upstream.
import { onInvalidation, publishInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";
import { hideSecrets } from "@/lib/net/mask";

const log = componentLogger("relay");

export type BreakerState = "closed" | "open" | "half_open";

/** The options that drive the breaker (ChannelBreaker*). */
export type BreakerSettings = {
  ChannelBreakerEnabled: boolean;
  ChannelBreakerFailures: number;
  ChannelBreakerWindowSeconds: number;
  ChannelBreakerCooldownSeconds: number;
};

/** A half-open trial that reported nothing for this long (its process died) lets another through. */
const TRIAL_TIMEOUT_MS = 120_000;

export class Breaker {
  state: BreakerState = "closed";
  /** While open: when the cool-down ends (ms). */
  until = 0;
  /** While half-open: when the trial request started (ms). */
  trialAt = 0;
  /** The failures counted while closed (ms), oldest first. */
  failures: number[] = [];
  /** The last failure's message, shown to admins beside the state. */
  lastFailure = "";

  constructor(readonly target: string) {}

  /** Whether a request may be sent now: closed, or open past its cool-down with no trial running. */
  allows(now: number): boolean {
    if (this.state === "closed") return true;
    if (this.state === "open") return now >= this.until;
    return now - this.trialAt > TRIAL_TIMEOUT_MS;
  }

  /** A request was sent: past the cool-down it is the trial, and the others wait for its outcome. */
  begin(now: number): void {
    if (this.state !== "closed" && this.allows(now)) {
      this.state = "half_open";
      this.trialAt = now;
    }
  }

  /** A request's answer started. Says whether this closed the breaker. */
  succeed(): boolean {
    this.failures.length = 0;
    if (this.state === "closed") return false;
    this.close();
    return true;
  }

  /** A request failed with an outage. Says whether this opened the breaker (from closed or a trial). */
  fail(now: number, settings: BreakerSettings, reason: string): boolean {
    this.lastFailure = reason;
    if (this.state === "half_open") {
      this.open(now + settings.ChannelBreakerCooldownSeconds * 1000);
      return true;
    }
    if (this.state === "open") return false;
    const from = now - settings.ChannelBreakerWindowSeconds * 1000;
    const failures = this.failures;
    while (failures.length > 0 && failures[0]! <= from) failures.shift();
    failures.push(now);
    if (failures.length < settings.ChannelBreakerFailures) return false;
    this.open(now + settings.ChannelBreakerCooldownSeconds * 1000);
    return true;
  }

  /** A trial that ended without an outcome (the request failed for another reason): another may try. */
  abandon(): void {
    if (this.state === "half_open") {
      this.state = "open";
      this.trialAt = 0;
    }
  }

  open(until: number): void {
    this.state = "open";
    this.until = until;
    this.trialAt = 0;
    this.failures.length = 0;
  }

  close(): void {
    this.state = "closed";
    this.until = 0;
    this.trialAt = 0;
    this.failures.length = 0;
  }
}

/** The target of a channel, or of one of its keys (the key's sha256 hex, channel_keys.key_hash). */
export function breakerTarget(channelId: number, keyHash?: string): string {
  return keyHash ? `${channelId}:${keyHash}` : String(channelId);
}

type Registry = {
  /** Every target with a breaker that is not closed or has failures counted. */
  targets: Map<string, Breaker>;
  /**
   * The channel targets that are not closed, by channel id: what pickChannel looks at (a map it
   * never reads while it is empty).
   */
  blocked: Map<number, Breaker>;
  unsubscribe: (() => void) | null;
};

const registry = processSingleton<Registry>("relayBreakers", () => ({
  targets: new Map(),
  blocked: new Map(),
  unsubscribe: null,
}));

/** Channel ids whose breaker is not closed; empty in the steady state. */
export const blockedChannels: ReadonlyMap<number, Breaker> = registry.blocked;

function channelIdOf(target: string): number | null {
  return /^\d+$/.test(target) ? Number(target) : null;
}

function breakerOf(target: string): Breaker {
  let breaker = registry.targets.get(target);
  if (!breaker) registry.targets.set(target, (breaker = new Breaker(target)));
  return breaker;
}

/** Keeps `blocked` in step with a channel target's state, and drops closed breakers with nothing counted. */
function track(breaker: Breaker): void {
  const id = channelIdOf(breaker.target);
  if (breaker.state === "closed") {
    if (id !== null) registry.blocked.delete(id);
    if (breaker.failures.length === 0) registry.targets.delete(breaker.target);
  } else if (id !== null) registry.blocked.set(id, breaker);
}

function publish(breaker: Breaker): void {
  publishInvalidation({
    kind: "breaker",
    target: breaker.target,
    state: breaker.state === "closed" ? "closed" : "open",
    until: breaker.until,
    reason: breaker.lastFailure,
  });
}

/** Whether a target may take a request now (no breaker, or allows). */
export function breakerAllows(target: string, now = Date.now()): boolean {
  const breaker = registry.targets.get(target);
  return !breaker || breaker.allows(now);
}

/** A request is being sent to the target: claims the half-open trial when its cool-down is over. */
export function breakerBegin(target: string, now = Date.now()): void {
  registry.targets.get(target)?.begin(now);
}

/** The target's answer started: clears its count, closes it (and says so on the bus) when it was not closed. */
export function breakerSuccess(target: string): void {
  const breaker = registry.targets.get(target);
  if (!breaker) return;
  const closed = breaker.succeed();
  track(breaker);
  if (closed) publish(breaker);
}

/** The target failed with an outage: counts it; says whether the breaker opened (then published). */
export function breakerFailure(target: string, settings: BreakerSettings, reason: string, now = Date.now()): boolean {
  const breaker = breakerOf(target);
  const opened = breaker.fail(now, settings, reason);
  track(breaker);
  if (opened) {
    log.warn({ target, until: new Date(breaker.until).toISOString(), reason: hideSecrets(reason) }, "breaker open");
    publish(breaker);
  }
  return opened;
}

/** Opens the target until `until` (every key of a multi-key channel is open: so is the channel). */
export function breakerTrip(target: string, until: number, reason: string): void {
  const breaker = breakerOf(target);
  if (breaker.state === "open" && breaker.until >= until) return;
  breaker.lastFailure = reason;
  breaker.open(until);
  track(breaker);
  log.warn({ target, until: new Date(until).toISOString(), reason: "every key is open" }, "breaker open");
  publish(breaker);
}

/** When the target's cool-down ends (ms), or 0 when it is closed. */
export function breakerUntil(target: string): number {
  const breaker = registry.targets.get(target);
  return breaker && breaker.state !== "closed" ? breaker.until : 0;
}

/** The request ended without telling whether the target works: a trial it held is let go. */
export function breakerAbandon(target: string): void {
  registry.targets.get(target)?.abandon();
}

/**
 * Whether a failure says the target is down: an answer of 5xx (after the channel's status mapping)
 * — timeouts, connection errors and unreadable answers come as 502/504 — and not one caused by the
 * client leaving. 4xx are the request's fault or the key's (401/403 go to the auto-disable); 429
 * is not counted either: a saturated upstream that still answers is up, the retry already moves
 * that request to another channel, and opening on quota windows would pile a busy group's load on
 * the channels left.
 */
export function countsAsOutage(status: number, clientGone: boolean): boolean {
  return status >= 500 && !clientGone;
}

export type BreakerView = { state: "open" | "half_open"; until: number; reason: string };

/**
 * A target's state for the console: open (with when it reopens), half-open once the cool-down is
 * over (a trial is due or running), or null when closed.
 */
export function breakerView(target: string, now = Date.now()): BreakerView | null {
  const breaker = registry.targets.get(target);
  if (!breaker || breaker.state === "closed") return null;
  const state = breaker.state === "half_open" || now >= breaker.until ? "half_open" : "open";
  return { state, until: Math.floor(breaker.until / 1000), reason: breaker.lastFailure };
}

/** Another process opened or closed a target (or all, "*"): follow it (its count stays its own). */
function onEvent(event: CacheEvent, remote: boolean): void {
  if (event.kind !== "breaker" || !remote) return;
  if (event.target === ALL) {
    resetBreakers();
    return;
  }
  const breaker = breakerOf(event.target);
  if (event.state === "open") {
    breaker.lastFailure = event.reason ?? "";
    breaker.open(event.until);
  } else breaker.close();
  track(breaker);
}

/**
 * Follows the openings and closings other processes publish (once per process); those of other
 * instances arrive the same way when the process is bridged to them (lib/cache/redis-bus.ts).
 */
export function startBreakers(): void {
  registry.unsubscribe ??= onInvalidation(onEvent);
}

/** The event target that stands for every breaker. */
const ALL = "*";

/** Forgets every breaker in this process (a test starts afresh). */
export function resetBreakers(): void {
  registry.targets.clear();
  registry.blocked.clear();
}

/** The breaker was turned off: every process forgets what it held (the console stops showing it). */
export function dropAllBreakers(): void {
  resetBreakers();
  publishInvalidation({ kind: "breaker", target: ALL, state: "closed", until: 0 });
}

/** Whether any breaker holds state (then turning the option off has something to forget). */
export function breakersHeld(): boolean {
  return registry.targets.size > 0;
}
