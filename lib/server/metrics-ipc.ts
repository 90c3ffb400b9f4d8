// One scrape of /metrics shows the whole `npm start` instance: the relay worker that receives it
// asks the primary, which asks every child (relay workers and the console) for its registry as
// JSON, adds its own, merges them with prom-client's AggregatorRegistry.aggregate() and answers
// the text. Counters and histograms are summed over the processes; the process metrics are merged
// as prom-client does (CPU, memory, handles summed; event-loop lag averaged; start time left
// out); qiao_channels takes the largest value (every process sees the same channels). Messages:
//   child → primary   metrics { id }                    (a scrape arrived)
//   primary → child   metrics-collect { id }            (send your registry)
//   child → primary   metrics-report { id, metrics }
//   primary → child   metrics-answer { id, text }       (the instance's exposition text)
// A child that does not report within COLLECT_WAIT_MS is left out of that scrape.
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import { metricsRegistry } from "@/lib/metrics/registry";
import { isObj } from "@/lib/obj";
import { componentLogger } from "@/lib/log";

const log = componentLogger("metrics");

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export type MetricsAsk = { qiao: "metrics"; id: number };
export type MetricsCollect = { qiao: "metrics-collect"; id: number };
export type MetricsReport = { qiao: "metrics-report"; id: number; metrics: MetricsJson | null };
export type MetricsAnswer = { qiao: "metrics-answer"; id: number; text: string | null };

/** How long the primary waits for the children's registries. */
const COLLECT_WAIT_MS = 2_000;
/** How long a child waits for the primary's answer before giving up on the scrape. */
const ANSWER_WAIT_MS = 5_000;

/** A child as the primary sees it. */
export type MetricsPeer = { send(m: MetricsCollect | MetricsAnswer): void };

/** The primary's side: `ask` when a child receives a scrape, `report` with each child's answer. */
export function metricsServer() {
  let seq = 0;
  const collecting = new Map<number, { waiting: Set<MetricsPeer>; got: MetricsJson[]; done: () => void }>();
  return {
    ask(from: MetricsPeer, askId: number, children: readonly MetricsPeer[]) {
      const id = ++seq;
      const finish = async () => {
        const c = collecting.get(id);
        if (!c) return;
        collecting.delete(id);
        clearTimeout(timer);
        let text: string | null = null;
        try {
          const own = await metricsRegistry.getMetricsAsJSON();
          text = await AggregatorRegistry.aggregate([own as MetricsJson, ...c.got]).metrics();
        } catch (error) {
          log.error({ err: error }, "aggregation failed");
        }
        from.send({ qiao: "metrics-answer", id: askId, text });
      };
      const timer = setTimeout(() => void finish(), COLLECT_WAIT_MS);
      timer.unref();
      collecting.set(id, { waiting: new Set(children), got: [], done: () => void finish() });
      if (children.length === 0) return void finish();
      for (const child of children) child.send({ qiao: "metrics-collect", id });
    },
    report(from: MetricsPeer, m: MetricsReport) {
      const c = collecting.get(m.id);
      if (!c?.waiting.delete(from)) return;
      if (m.metrics) c.got.push(m.metrics);
      if (c.waiting.size === 0) c.done();
    },
    /** A child exited: no scrape waits for it. */
    gone(peer: MetricsPeer) {
      for (const c of collecting.values()) if (c.waiting.delete(peer) && c.waiting.size === 0) c.done();
    },
  };
}

function isCollect(m: unknown): m is MetricsCollect {
  return isObj(m) && m.qiao === "metrics-collect" && typeof m.id === "number";
}

function isAnswer(m: unknown): m is MetricsAnswer {
  return isObj(m) && m.qiao === "metrics-answer" && typeof m.id === "number";
}

type Send = (m: MetricsAsk | MetricsReport) => void;

/**
 * A child's side: answers the primary's collections with this process's registry, and
 * `instanceMetrics` asks the primary for the whole instance's text (null: no answer in time).
 */
export function metricsViaParent(send: Send) {
  const waiting = new Map<number, (text: string | null) => void>();
  let seq = 0;
  return {
    onMessage(m: unknown) {
      if (isCollect(m)) {
        metricsRegistry.getMetricsAsJSON().then(
          (metrics) => send({ qiao: "metrics-report", id: m.id, metrics: metrics as MetricsJson }),
          (error) => {
            log.error({ err: error }, "collecting failed");
            send({ qiao: "metrics-report", id: m.id, metrics: null });
          },
        );
      } else if (isAnswer(m)) {
        waiting.get(m.id)?.(m.text);
        waiting.delete(m.id);
      }
    },
    instanceMetrics(): Promise<string | null> {
      const id = ++seq;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve(null);
        }, ANSWER_WAIT_MS);
        timer.unref();
        waiting.set(id, (text) => {
          clearTimeout(timer);
          resolve(text);
        });
        send({ qiao: "metrics", id });
      });
    },
  };
}

/** In a child of `npm start`: answers the primary's collections; gives the instance's scrape. */
export function metricsInParent(): () => Promise<string | null> {
  const via = metricsViaParent((m) => {
    if (process.send && process.connected) process.send(m, undefined, undefined, () => undefined);
  });
  process.on("message", via.onMessage);
  return via.instanceMetrics;
}
