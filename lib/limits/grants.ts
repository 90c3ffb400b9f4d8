// Admission in a relay worker's own memory, with shares of each limit handed out by the primary
// of `npm start` (lib/server/limits-ipc.ts; the counters are lib/limits/store.ts's). Asking the
// primary for every call costs a round trip between processes, which halved the relay's
// throughput with generous limits; so, while a counter is far from its limit, the primary grants
// each worker a share of what is left (at most an eighth, GRANT_SHARE), and the worker admits
// calls against its shares synchronously, asking for the next share before this one runs out.
// A share lasts GRANT_MS; the worker then reports what it admitted with it (request times, tokens
// per second, quota), which replaces the reservation at the primary, so the primary's windows hold
// what really happened. Concurrency shares are slots added to the worker's holding, given back as
// its calls end once it no longer needs them.
//
// Exactness: whatever a worker may admit on its own is reserved at the primary first, so the
// workers together never pass a limit. Near a limit the primary grants nothing (an eighth of the
// headroom is less than a call) and every call is admitted there, one by one; should a call be
// refused while another worker still holds an unused share of that counter, the primary asks the
// shares back (reclaim) and decides again once they are in.
//
// A call admitted here answers with x-ratelimit-* figures from the primary's last grant and this
// worker's use since: other workers' calls of the last moment are not in them.
import { randomBytes } from "node:crypto";
import type {
  AdmitAnswer,
  AdmitAsk,
  CounterSpec,
  CounterState,
  Grant,
  GrantAsk,
  GrantReport,
  LimitStore,
  SettleAsk,
} from "@/lib/limits/store";
import { GRANT_MS, WINDOW_MS } from "@/lib/limits/store";

/** The primary as a worker sees it (lib/server/limits-ipc.ts `limitsViaParent`). */
export interface GrantingRemote {
  /** Admits one call there; with `wants`, also grants shares of the call's counters. */
  admit(ask: AdmitAsk, wants?: GrantAsk): Promise<{ answer: AdmitAnswer; grants: (Grant | null)[] | null }>;
  grant(ask: GrantAsk): Promise<(Grant | null)[]>;
  settle(ask: SettleAsk): void;
  /**
   * Gives shares back; `reclaimed`: the primary's reclaim this answers; `final`: this worker is
   * done (every share it knows of is in `reports`: any other is unused). Resolves once sent.
   */
  report(reports: GrantReport[], reclaimed?: number, final?: boolean): Promise<void>;
}

/** A share of rpm, tpm or budget being admitted against. */
type Share = {
  /** The counter it is a share of. */
  of: Allowance;
  id: string;
  size: number;
  room: number;
  until: number;
  /** What it admitted: rpm request times as runs (GrantReport), tpm tokens per second, budget quota. */
  runs: number[];
  bySecond: Map<number, number>;
  spent: number;
  closed: boolean;
};

/** This worker's side of one counter. */
type Allowance = {
  spec: CounterSpec;
  shares: Share[];
  /** Concurrency: slots held at the primary and this worker's calls in flight on them. */
  held: number;
  inflight: number;
  asking: boolean;
  /** Units admitted here in this and the last GRANT_MS: the next share's size follows them. */
  recent: number;
  previous: number;
  /** The primary's figures at the last grant, for the x-ratelimit-* headers. */
  used: number;
  resetMs: number;
  grantedAt: number;
  lastUse: number;
  lastNews: number;
};

/** What a call admitted here took, per counter (passed back at settlement): a share, or a concurrency allowance. */
type Taken = (Share | Allowance | null)[];

/** A counter's state where no header needs it (concurrency, budget): calls admitted here do not work it out. */
const UNSTATED: CounterState = Object.freeze({ used: 0, resetMs: 0 });

/** The least share worth asking for, in calls; and the first share's size. */
const MIN_CALLS = 2;
const FIRST_CALLS = 16;
const TICK_MS = GRANT_MS / 4;
/** A holding unchanged this long is confirmed to the primary (its record of it lives five minutes). */
const KEEPALIVE_MS = 60_000;

const units = (c: CounterSpec, ask: { tokens: number; quota: number }): number =>
  c.kind === "tpm" ? ask.tokens : c.kind === "budget" ? ask.quota : 1;

export class GrantingStore implements LimitStore {
  readonly owner = `${process.pid.toString(36)}.${randomBytes(4).toString("hex")}`;
  private allowances = new Map<string, Allowance>();
  private timer: NodeJS.Timeout | null = null;
  /** Flushed: no more shares (a grant answered after it is not used). */
  private closed = false;

  constructor(
    private readonly remote: GrantingRemote,
    private readonly clock: () => number = Date.now,
  ) {}

  admit(ask: AdmitAsk): AdmitAnswer | Promise<AdmitAnswer> {
    if (!ask.record || this.closed) return this.remote.admit(ask).then((r) => r.answer);
    const now = this.clock();
    const taken = this.takeLocally(ask, now);
    if (taken) return this.answerLocally(ask, taken, now);
    return this.admitRemotely(ask, now);
  }

  /** The shares that admit the whole call here, or null (then nothing was taken). */
  private takeLocally(ask: AdmitAsk, now: number): Taken | null {
    const taken: Taken = new Array(ask.counters.length);
    for (let i = 0; i < ask.counters.length; i++) {
      const c = ask.counters[i]!;
      const a = this.allowances.get(c.key);
      if (!a || a.spec.limit !== c.limit || a.spec.kind !== c.kind) return null;
      if (c.kind === "concurrency") {
        if (a.inflight >= a.held) return null;
        taken[i] = a;
        continue;
      }
      const need = units(c, ask);
      let share: Share | null = null;
      for (const s of a.shares) {
        if (!s.closed && s.until > now && s.room >= need) {
          share = s;
          break;
        }
      }
      if (!share) return null;
      taken[i] = share;
    }
    return taken;
  }

  private answerLocally(ask: AdmitAsk, taken: Taken, now: number): AdmitAnswer {
    const nowS = Math.floor(now / 1000);
    const states: CounterState[] = new Array(ask.counters.length);
    for (let i = 0; i < ask.counters.length; i++) {
      const c = ask.counters[i]!;
      const t = taken[i]!;
      const n = units(c, ask);
      let a: Allowance;
      if (c.kind === "concurrency") {
        a = t as Allowance;
        a.inflight++;
      } else {
        const share = t as Share;
        a = share.of;
        share.room -= n;
        if (c.kind === "rpm") {
          const runs = share.runs;
          const last = runs.length - 2;
          if (last >= 0 && runs[last] === now) runs[last + 1]!++;
          else runs.push(now, 1);
        } else if (c.kind === "tpm") share.bySecond.set(nowS, (share.bySecond.get(nowS) ?? 0) + n);
        else share.spent += n;
      }
      a.recent += n;
      a.lastUse = now;
      // Only rpm and tpm figures reach the answer (its x-ratelimit-* headers).
      states[i] = c.kind === "rpm" || c.kind === "tpm" ? this.state(a, now) : UNSTATED;
      this.maybeRefill(a, ask, now);
    }
    return { refused: -1, waitMs: 0, states, bucket: nowS, local: taken };
  }

  /** The counter as the primary last said it, less what this worker's shares still hold unused. */
  private state(a: Allowance, now: number): CounterState {
    let unused = 0;
    for (const s of a.shares) if (!s.closed) unused += Math.max(0, s.room);
    const resetMs = Math.max(0, a.resetMs - (now - a.grantedAt));
    return { used: Math.max(0, a.used - unused), resetMs: a.spec.kind === "rpm" && resetMs === 0 ? WINDOW_MS : resetMs };
  }

  private async admitRemotely(ask: AdmitAsk, now: number): Promise<AdmitAnswer> {
    const wants = this.wants(ask.counters, ask, now);
    const { answer, grants } = await this.remote.admit(ask, wants ?? undefined);
    if (wants) this.install(ask.counters, grants, wants, this.clock());
    return answer;
  }

  /** What to ask for with a call admitted at the primary: a share of each counter not being asked already. */
  private wants(counters: CounterSpec[], ask: { tokens: number; quota: number }, now: number): GrantAsk | null {
    const want: number[] = [];
    const min: number[] = [];
    let any = false;
    for (const c of counters) {
      const a = this.allowance(c, now);
      if (a.asking) {
        want.push(0);
        min.push(0);
        continue;
      }
      const per = Math.max(1, units(c, ask));
      // Enough for two shares' time at the pace of the last ticks; concurrency: as many again as in flight.
      const size =
        c.kind === "concurrency"
          ? Math.max(FIRST_CALLS / 4, a.inflight)
          : Math.max(per * FIRST_CALLS, 2 * (GRANT_MS / TICK_MS) * Math.max(a.recent, a.previous));
      want.push(size);
      min.push(per * MIN_CALLS);
      a.asking = true;
      any = true;
    }
    if (!any) return null;
    return { owner: this.owner, counters, want, min };
  }

  private allowance(c: CounterSpec, now: number): Allowance {
    let a = this.allowances.get(c.key);
    if (a && (a.spec.limit !== c.limit || a.spec.kind !== c.kind)) {
      // The limit changed: what was granted under the old one goes back.
      this.giveBack(a, now, undefined);
      a = undefined;
    }
    if (!a) {
      a = {
        spec: c,
        shares: [],
        held: 0,
        inflight: 0,
        asking: false,
        recent: 0,
        previous: 0,
        used: 0,
        resetMs: 0,
        grantedAt: now,
        lastUse: now,
        lastNews: now,
      };
      this.allowances.set(c.key, a);
      this.startTicking();
    }
    return a;
  }

  private install(counters: CounterSpec[], grants: (Grant | null)[] | null, wants: GrantAsk, now: number) {
    if (this.closed) return;
    counters.forEach((c, i) => {
      if (!wants.want[i]) return;
      const a = this.allowances.get(c.key);
      if (!a) return;
      a.asking = false;
      const g = grants?.[i];
      if (!g) return;
      a.used = g.used;
      a.resetMs = g.resetMs;
      a.grantedAt = now;
      a.lastNews = now;
      if (c.kind === "concurrency") {
        a.held += g.n;
        return;
      }
      a.shares.push({ of: a, id: g.id, size: g.n, room: g.n, until: g.until, runs: [], bySecond: new Map(), spent: 0, closed: false });
    });
  }

  /** Asks for the next share before this one runs out (of room or of time). */
  private maybeRefill(a: Allowance, ask: { tokens: number; quota: number }, now: number) {
    if (a.asking) return;
    if (a.spec.kind === "concurrency") {
      if (a.held - a.inflight > Math.max(1, a.inflight / 2)) return;
    } else {
      let room = 0;
      let last = 0;
      let size = 0;
      for (const s of a.shares) {
        if (s.closed || s.until <= now) continue;
        room += s.room;
        last = Math.max(last, s.until);
        size = Math.max(size, s.size);
      }
      if (room * 2 > size && last - now > TICK_MS) return;
    }
    const wants = this.wants([a.spec], ask, now);
    if (!wants) return;
    this.remote.grant(wants).then(
      (grants) => this.install(wants.counters, grants, wants, this.clock()),
      () => {
        a.asking = false;
      },
    );
  }

  settle(ask: SettleAsk): void {
    const taken = ask.local as Taken | undefined;
    if (!taken) {
      this.remote.settle(ask);
      return;
    }
    const elsewhere: CounterSpec[] = [];
    for (let i = 0; i < ask.counters.length; i++) {
      const c = ask.counters[i]!;
      const t = taken[i];
      if (c.kind === "rpm" || !t) continue;
      if (c.kind === "concurrency") {
        this.release(t as Allowance);
        continue;
      }
      const share = t as Share;
      if (share.closed) {
        // Reported already: the correction goes where the tokens or quota now are.
        elsewhere.push(c);
      } else if (c.kind === "tpm" && ask.tokensDelta !== 0) {
        share.bySecond.set(ask.bucket, Math.max(0, (share.bySecond.get(ask.bucket) ?? 0) + ask.tokensDelta));
        share.room -= ask.tokensDelta;
      } else if (c.kind === "budget" && ask.quotaDelta !== 0) {
        share.spent = Math.max(0, share.spent + ask.quotaDelta);
        share.room -= ask.quotaDelta;
      }
    }
    if (elsewhere.length > 0 && (ask.tokensDelta !== 0 || ask.quotaDelta !== 0)) {
      this.remote.settle({ ...ask, counters: elsewhere, lease: "", local: undefined });
    }
  }

  /** A call that held one of this worker's slots ended: the slot stays held for the next call (tick gives idle ones back). */
  private release(a: Allowance) {
    a.inflight = Math.max(0, a.inflight - 1);
  }

  /** Closes a share: from now on, what it admitted is the primary's to count. */
  private close(a: Allowance, share: Share): GrantReport {
    share.closed = true;
    const { key, kind } = a.spec;
    if (kind === "rpm") return { id: share.id, key, kind, runs: share.runs };
    if (kind === "tpm") return { id: share.id, key, kind, bySecond: [...share.bySecond] };
    return { id: share.id, key, kind: "budget", spent: share.spent };
  }

  /**
   * Closes a counter's shares whose time is up (`all`: every one) and gives back the free slots
   * it holds beyond its need (`all`, or idle for a share's time: every free slot); the reports to send.
   */
  private collect(a: Allowance, now: number, all: boolean): GrantReport[] {
    const reports: GrantReport[] = [];
    for (const s of a.shares) if (!s.closed && (all || s.until <= now)) reports.push(this.close(a, s));
    a.shares = a.shares.filter((s) => !s.closed);
    if (a.spec.kind === "concurrency") {
      const keep = all || now - a.lastUse > GRANT_MS ? a.inflight : a.inflight + Math.max(FIRST_CALLS / 4, 2 * a.inflight);
      if (a.held > keep) {
        reports.push({ owner: this.owner, key: a.spec.key, kind: "concurrency", returned: a.held - keep });
        a.held = keep;
        a.lastNews = now;
      }
    }
    return reports;
  }

  private giveBack(a: Allowance, now: number, reclaimed: number | undefined) {
    const reports = this.collect(a, now, true);
    if (reports.length > 0 || reclaimed !== undefined) void this.remote.report(reports, reclaimed);
  }

  /** The primary wants this worker's shares of `keys` back (a call elsewhere is near their limit). */
  reclaim(keys: string[], id: number) {
    const now = this.clock();
    const reports: GrantReport[] = [];
    for (const key of keys) {
      const a = this.allowances.get(key);
      if (a) reports.push(...this.collect(a, now, true));
    }
    void this.remote.report(reports, id);
  }

  /** Every share back to the primary (the worker is stopping). */
  flush(): Promise<void> {
    const now = this.clock();
    const reports: GrantReport[] = [];
    for (const a of this.allowances.values()) reports.push(...this.collect(a, now, true));
    this.allowances.clear();
    this.closed = true;
    this.stopTicking();
    return this.remote.report(reports, undefined, true);
  }

  /** Closes the shares whose time is up, returns idle slots, forgets idle counters. */
  tick() {
    const now = this.clock();
    const reports: GrantReport[] = [];
    for (const [key, a] of this.allowances) {
      reports.push(...this.collect(a, now, false));
      a.previous = a.recent;
      a.recent = 0;
      if (a.spec.kind === "concurrency" && a.held > 0 && now - a.lastNews > KEEPALIVE_MS) {
        reports.push({ owner: this.owner, key, kind: "concurrency", returned: 0 });
        a.lastNews = now;
      }
      if (a.shares.length === 0 && a.held === 0 && !a.asking && now - a.lastUse > WINDOW_MS) this.allowances.delete(key);
    }
    if (reports.length > 0) void this.remote.report(reports);
    if (this.allowances.size === 0) this.stopTicking();
  }

  private startTicking() {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private stopTicking() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
