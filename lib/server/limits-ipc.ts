// The request limits' counters (lib/limits/store.ts) kept by the primary of `npm start` for its
// children when there is no Redis: every relay worker admits there, so N workers do not let N
// times a limit through, and the console reads the same counters for a key's usage. One message
// each way per admission; a settlement is one message with no answer. Should the primary not
// answer in time, the child admits in its own memory for that call and says so in the log.
import { env } from "@/lib/env";
import { countLimitsIn } from "@/lib/limits/engine";
import { type AdmitAnswer, type AdmitAsk, type LimitStore, MemoryLimitStore, type SettleAsk } from "@/lib/limits/store";
import { isObj } from "@/lib/obj";

export type LimitsAsk = { qiao: "limits"; id: number; admit?: AdmitAsk; settle?: SettleAsk };
export type LimitsAnswer = { qiao: "limits-answer"; id: number; answer: AdmitAnswer };

function isLimitsAnswer(m: unknown): m is LimitsAnswer {
  return isObj(m) && m.qiao === "limits-answer" && typeof m.id === "number" && isObj(m.answer);
}

/** The primary's side: answers every child's asks from one store. */
export function limitsServer(store: LimitStore = new MemoryLimitStore()) {
  return (ask: LimitsAsk, reply: (answer: LimitsAnswer) => void) => {
    if (ask.settle) void Promise.resolve(store.settle(ask.settle)).catch(() => undefined);
    else if (ask.admit) {
      const admit = ask.admit;
      void Promise.resolve(store.admit(admit)).then(
        (answer) => reply({ qiao: "limits-answer", id: ask.id, answer }),
        // The primary's memory cannot fail; should it, the request is not refused for it.
        () => reply({ qiao: "limits-answer", id: ask.id, answer: { refused: -1, waitMs: 0, bucket: 0, states: [] } }),
      );
    }
  };
}

const ANSWER_TIMEOUT_MS = 2000;

/** A child's side: a store whose counters are the primary's. */
export function limitsViaParent(
  send: (ask: LimitsAsk) => void,
  fallback: LimitStore = new MemoryLimitStore(),
): { store: LimitStore; onMessage: (m: unknown) => void } {
  const waiting = new Map<number, (answer: AdmitAnswer) => void>();
  let seq = 0;
  return {
    onMessage(m) {
      if (!isLimitsAnswer(m)) return;
      waiting.get(m.id)?.(m.answer);
      waiting.delete(m.id);
    },
    store: {
      admit(ask) {
        const id = ++seq;
        return new Promise<AdmitAnswer>((resolve) => {
          const timer = setTimeout(() => {
            waiting.delete(id);
            console.error("[relay] limits: the primary did not answer; counted in this process");
            resolve(fallback.admit(ask));
          }, ANSWER_TIMEOUT_MS);
          timer.unref();
          waiting.set(id, (answer) => {
            clearTimeout(timer);
            resolve(answer);
          });
          send({ qiao: "limits", id, admit: ask });
        });
      },
      settle(ask) {
        send({ qiao: "limits", id: 0, settle: ask });
      },
    },
  };
}

/**
 * In a child of `npm start` without Redis (a relay worker, the console): the request limits are
 * counted by the primary, so the workers share them and the console reads them.
 */
export function countLimitsInPrimary() {
  if (env.REDIS_CONN_STRING || !process.send) return;
  const viaPrimary = limitsViaParent((ask) => {
    if (process.send && process.connected) process.send(ask, undefined, undefined, () => undefined);
  });
  process.on("message", viaPrimary.onMessage);
  countLimitsIn(viaPrimary.store);
}
