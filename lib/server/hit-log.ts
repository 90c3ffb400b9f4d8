// Sliding hit logs kept by the primary of `npm start` for its relay workers, when there is no
// Redis: the per-user request limits (lib/relay/call/rate-limit.ts) must count every worker's requests
// in one place, or N workers would let N times the limit through. A worker asks the primary over
// the cluster's IPC channel (one message each way, only while the limits are on); the primary
// answers from one MemoryCache. Should the primary not answer in time, the worker counts in its own
// memory for that call and says so in the log, rather than hold the request.
import { type HitRecord, MemoryCache, type SharedCache } from "@/lib/cache/shared";
import { isObj } from "@/lib/obj";
import { componentLogger } from "@/lib/log";

const log = componentLogger("request-limits");

export type HitLogAsk = { qiao: "hit-log"; id: number; key: string; limit: number; windowMs: number; record: HitRecord };
export type HitLogAnswer = { qiao: "hit-log-answer"; id: number; wait: number };

export type HitLogStore = Pick<SharedCache, "logHit">;

export function isHitLogAsk(m: unknown): m is HitLogAsk {
  return isObj(m) && m.qiao === "hit-log" && typeof m.id === "number" && typeof m.key === "string";
}

function isHitLogAnswer(m: unknown): m is HitLogAnswer {
  return isObj(m) && m.qiao === "hit-log-answer" && typeof m.id === "number" && typeof m.wait === "number";
}

/** The primary's side: answers each worker's asks from one store. */
export function hitLogServer(store: HitLogStore = new MemoryCache()) {
  return (ask: HitLogAsk, reply: (answer: HitLogAnswer) => void) => {
    store.logHit(ask.key, ask.limit, ask.windowMs, ask.record).then(
      (wait) => reply({ qiao: "hit-log-answer", id: ask.id, wait }),
      () => reply({ qiao: "hit-log-answer", id: ask.id, wait: 0 }),
    );
  };
}

const ANSWER_TIMEOUT_MS = 2000;

/** A worker's side: a store whose logs are the primary's. */
export function hitLogViaParent(
  send: (ask: HitLogAsk) => void = (ask) => process.send?.(ask),
  fallback: HitLogStore = new MemoryCache(),
): { store: HitLogStore; onMessage: (m: unknown) => void } {
  const waiting = new Map<number, (wait: number) => void>();
  let seq = 0;
  return {
    onMessage(m) {
      if (!isHitLogAnswer(m)) return;
      waiting.get(m.id)?.(m.wait);
      waiting.delete(m.id);
    },
    store: {
      logHit(key, limit, windowMs, record) {
        const id = ++seq;
        return new Promise<number>((resolve) => {
          const timer = setTimeout(() => {
            waiting.delete(id);
            log.error("request limits: the primary did not answer; counted in this worker");
            resolve(fallback.logHit(key, limit, windowMs, record));
          }, ANSWER_TIMEOUT_MS);
          timer.unref();
          waiting.set(id, (wait) => {
            clearTimeout(timer);
            resolve(wait);
          });
          send({ qiao: "hit-log", id, key, limit, windowMs, record });
        });
      },
    },
  };
}
