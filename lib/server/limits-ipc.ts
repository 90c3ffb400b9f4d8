// The request limits' counters (lib/limits/store.ts) kept by the primary of `npm start` for its
// children when there is no Redis: every relay worker admits against them, so N workers do not let
// N times a limit through, and the console reads the same counters for a key's usage.
//
// A worker admits most calls in its own memory, against shares of each limit the primary grants
// it (lib/limits/grants.ts); it asks the primary for the first call of a counter, near a limit,
// and for the next share before the current one runs out. Messages:
//   child → primary  limits { admit (+ wants) | grant | settle | report (+ reclaimed) }
//   primary → child  limits-answer { answer, grants }, limits-reclaim { keys }
// Should the primary not answer in time, the child admits in its own memory for that call and
// says so in the log.
import { env } from "@/lib/env";
import { countLimitsIn } from "@/lib/limits/engine";
import { type GrantingRemote, GrantingStore } from "@/lib/limits/grants";
import {
  type AdmitAnswer,
  type AdmitAsk,
  type Grant,
  type GrantAsk,
  type GrantReport,
  MemoryLimitStore,
  type SettleAsk,
} from "@/lib/limits/store";
import { isObj } from "@/lib/obj";
import { componentLogger } from "@/lib/log";

const log = componentLogger("limits");

export type LimitsAsk = {
  qiao: "limits";
  id: number;
  admit?: AdmitAsk;
  /** With `admit`: shares of its counters, granted if the call is admitted. */
  wants?: GrantAsk;
  grant?: GrantAsk;
  settle?: SettleAsk;
  report?: GrantReport[];
  /** With `report`: the reclaim (its id) these reports answer. */
  reclaimed?: number;
  /** With `report`: the child is stopping and has given back every share it knows of. */
  final?: boolean;
  owner?: string;
};
export type LimitsAnswer = { qiao: "limits-answer"; id: number; answer?: AdmitAnswer; grants?: (Grant | null)[] | null };
export type LimitsReclaim = { qiao: "limits-reclaim"; id: number; keys: string[] };

function isLimitsAnswer(m: unknown): m is LimitsAnswer {
  return isObj(m) && m.qiao === "limits-answer" && typeof m.id === "number";
}

function isLimitsReclaim(m: unknown): m is LimitsReclaim {
  return isObj(m) && m.qiao === "limits-reclaim" && typeof m.id === "number" && Array.isArray(m.keys);
}

/** A child as the primary sees it: where its answers go. */
export type LimitsPeer = { send(m: LimitsAnswer | LimitsReclaim): void };

/** How long the primary waits for shares it asked back before deciding without them. */
const RECLAIM_WAIT_MS = 100;

/**
 * The primary's side: answers every child's asks from one store. `handle` each "limits" message
 * with the child it came from; `gone` when a child exits (the slots it held end with it).
 */
export function limitsServer(store: MemoryLimitStore = new MemoryLimitStore()) {
  const peers = new Map<string, LimitsPeer>();
  const ownersOf = new Map<LimitsPeer, Set<string>>();
  /** Reclaims waiting for their answers: id → the owners still to answer, and what to do then. */
  const reclaims = new Map<number, { owners: Set<string>; done: () => void }>();
  let reclaimSeq = 0;

  const know = (owner: string | undefined, peer: LimitsPeer) => {
    if (!owner || peers.get(owner) === peer) return;
    peers.set(owner, peer);
    let owners = ownersOf.get(peer);
    if (!owners) ownersOf.set(peer, (owners = new Set()));
    owners.add(owner);
  };

  const answered = (id: number, owner: string) => {
    const r = reclaims.get(id);
    if (!r) return;
    r.owners.delete(owner);
    if (r.owners.size === 0) r.done();
  };

  /** Asks every worker holding a share of these counters to give it back; resolves when all have (or in RECLAIM_WAIT_MS). */
  const reclaim = (keys: string[]): Promise<void> | null => {
    const owners = new Set<string>();
    for (const key of keys) for (const o of store.holders(key, "")) if (peers.has(o)) owners.add(o);
    if (owners.size === 0) return null;
    const id = ++reclaimSeq;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), RECLAIM_WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        reclaims.delete(id);
        resolve();
      };
      reclaims.set(id, { owners, done });
      for (const o of owners) peers.get(o)!.send({ qiao: "limits-reclaim", id, keys });
    });
  };

  const admit = (ask: LimitsAsk, admitAsk: AdmitAsk, peer: LimitsPeer) => {
    const reply = (answer: AdmitAnswer) => {
      const grants = ask.wants && answer.refused < 0 ? store.grant(ask.wants) : null;
      peer.send({ qiao: "limits-answer", id: ask.id, answer, grants });
    };
    const answer = store.admit(admitAsk);
    if (answer.refused < 0 || !admitAsk.record) return reply(answer);
    // Refused: shares other workers hold unused may be what is missing. Ask them back, decide again.
    const back = reclaim(admitAsk.counters.map((c) => c.key));
    if (!back) return reply(answer);
    void back.then(() => reply(store.admit(admitAsk)));
  };

  return {
    handle(ask: LimitsAsk, peer: LimitsPeer) {
      know(ask.owner, peer);
      if (ask.report) {
        store.report(ask.report);
        if (ask.reclaimed !== undefined && ask.owner) answered(ask.reclaimed, ask.owner);
        // Shares granted while it stopped never reached it: they were not used.
        if (ask.final && ask.owner) store.forget(ask.owner, true);
      }
      if (ask.settle) store.settle(ask.settle);
      if (ask.grant) peer.send({ qiao: "limits-answer", id: ask.id, grants: store.grant(ask.grant) });
      if (ask.admit) admit(ask, ask.admit, peer);
    },
    gone(peer: LimitsPeer) {
      for (const owner of ownersOf.get(peer) ?? []) {
        store.forget(owner);
        peers.delete(owner);
        for (const id of [...reclaims.keys()]) answered(id, owner);
      }
      ownersOf.delete(peer);
    },
  };
}

const ANSWER_TIMEOUT_MS = 2000;
const NO_GRANTS: { grants: null } = { grants: null };

/**
 * A child's side: a store whose counters are the primary's, admitting in this process against the
 * shares it grants. `send`'s callback runs once the message is on its way.
 */
export function limitsViaParent(
  send: (ask: LimitsAsk, sent?: () => void) => void,
  fallback: MemoryLimitStore = new MemoryLimitStore(),
): { store: GrantingStore; onMessage: (m: unknown) => void } {
  const waiting = new Map<number, (answer: LimitsAnswer) => void>();
  let seq = 0;
  let owner = "";

  /** Sends an ask that has an answer; `orElse` when the primary does not give one in time. */
  const ask = <T>(m: Omit<LimitsAsk, "qiao" | "id" | "owner">, then: (a: LimitsAnswer) => T, orElse: () => T | Promise<T>): Promise<T> => {
    const id = ++seq;
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(orElse());
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(then(answer));
      });
      send({ qiao: "limits", id, owner, ...m });
    });
  };

  const remote: GrantingRemote = {
    admit(admit, wants) {
      return ask(
        { admit, wants },
        (a) => ({ answer: a.answer ?? { refused: -1, waitMs: 0, bucket: 0, states: [] }, grants: a.grants ?? null }),
        () => {
          log.error("limits: the primary did not answer; counted in this process");
          return { answer: fallback.admit(admit), ...NO_GRANTS };
        },
      );
    },
    grant(grant) {
      return ask(
        { grant },
        (a) => a.grants ?? [],
        () => [],
      );
    },
    settle(settle) {
      send({ qiao: "limits", id: 0, owner, settle });
    },
    report(report, reclaimed, final) {
      return new Promise<void>((resolve) => send({ qiao: "limits", id: 0, owner, report, reclaimed, final }, resolve));
    },
  };
  const store = new GrantingStore(remote);
  owner = store.owner;
  return {
    store,
    onMessage(m) {
      if (isLimitsAnswer(m)) {
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      } else if (isLimitsReclaim(m)) {
        store.reclaim(m.keys, m.id);
      }
    },
  };
}

let granting: GrantingStore | null = null;

/**
 * In a child of `npm start` without Redis (a relay worker, the console): the request limits are
 * counted by the primary, so the workers share them and the console reads them.
 */
export function countLimitsInPrimary() {
  if (env.REDIS_CONN_STRING || !process.send) return;
  const viaPrimary = limitsViaParent((ask, sent) => {
    if (process.send && process.connected) process.send(ask, undefined, undefined, () => sent?.());
    else sent?.();
  });
  process.on("message", viaPrimary.onMessage);
  countLimitsIn(viaPrimary.store);
  granting = viaPrimary.store;
}

/** At shutdown: this worker's unused shares back to the primary (bounded: the primary may be gone). */
export function returnLimitShares(): Promise<void> {
  if (!granting) return Promise.resolve();
  const sent = granting.flush();
  return Promise.race([sent, new Promise<void>((r) => setTimeout(r, 500).unref())]);
}
