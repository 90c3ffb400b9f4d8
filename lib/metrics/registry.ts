// The process's Prometheus metrics (prom-client): one registry per process, made once (processSingleton:
// Next's bundles load this module several times), with prom-client's default process metrics and
// Qiao's own `qiao_*` metrics. What happens on a relay call is recorded by lib/metrics/relay.ts;
// what is a state (channels, holds, streams open) is read when the registry is scraped, from the
// sources the relay registers (setMetricsSources). docs/metrics.md lists every metric.
//
// Labels name models (as requested, at most MAX_MODEL_LABELS distinct, then "other"), channels (their
// id), token kinds and status classes: never a key, a user, an e-mail, a token name or an address.
// The series every relay call adds to are lib/metrics/tally.ts's (plain numbers, read at scrape time);
// the rest are prom-client's. Imports nothing but prom-client and that: the primary of `npm start`
// loads it too.
import cluster from "node:cluster";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { TallyCounter, TallyHistogram } from "@/lib/metrics/tally";
import { processSingleton } from "@/lib/singleton";

/** Distinct model label values a process keeps; later models are counted as OTHER_LABEL. */
export const MAX_MODEL_LABELS = 500;
/** Distinct channel label values a process keeps (channel ids); later ones are OTHER_LABEL. */
export const MAX_CHANNEL_LABELS = 1000;
export const OTHER_LABEL = "other";
/** The channel label of a call that ended before any channel was tried. */
export const NO_CHANNEL_LABEL = "none";

/** Seconds: from a call's arrival to its end (the last byte of a stream, the answer of a whole one). */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: from a call's arrival to a stream's first token. */
const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60];

/** The event-loop delay gauge's window: the p99 of the last one or two of these. */
const LOOP_WINDOW_MS = 5_000;

/** This process in `npm start`: the primary, the console or a relay worker (numbered); "main" alone. */
function processLabel(): string {
  if (process.env.QIAO_ROLE === "console") return "console";
  if (cluster.isWorker) return `relay-${cluster.worker?.id ?? process.pid}`;
  if (Object.keys(cluster.workers ?? {}).length > 0) return "primary";
  return "main";
}

/** How often the loop-delay histograms sample, in ms. */
const LOOP_RESOLUTION_MS = 10;

/**
 * The p99 event-loop delay of the last 5 to 10 seconds, in seconds: two histograms, the older
 * dropped every LOOP_WINDOW_MS, so the figure follows the present whoever scrapes and how often.
 * Node's histogram records the whole time between two of its samples, the sampling interval
 * included (an idle loop reads 10 ms); the interval is taken off, so an idle loop reads 0.
 */
function loopDelayP99(): () => number {
  const windows = [monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS }), monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })];
  for (const w of windows) w.enable();
  let current = 0;
  const timer = setInterval(() => {
    current = 1 - current;
    windows[current]!.reset();
  }, LOOP_WINDOW_MS);
  timer.unref();
  return () => Math.max(0, Math.max(windows[0]!.percentile(99), windows[1]!.percentile(99)) / 1e9 - LOOP_RESOLUTION_MS / 1000);
}

/** What the gauges read at scrape time; each is set by the process that has it (lib/server/metrics-sources.ts). */
export type MetricsSources = {
  /** Channels enabled, disabled, and with a circuit breaker that is not closed. */
  channels?: () => Promise<{ enabled: number; disabled: number; open: number }>;
  /** Open quota holds and the quota they hold; null before the ledger is started. */
  holds?: () => { open: number; quota: number } | null;
};

function makeMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources: MetricsSources = {};
  /** Streams being relayed now: a plain number the stream path adds to (no prom-client call there). */
  const streams = { open: 0 };
  const metrics = {
    requests: new TallyCounter(
      "qiao_relay_requests_total",
      "Relay calls ended, by model requested, channel id and HTTP status class of the answer",
      ["model", "channel", "status_class"],
      registry,
    ),
    duration: new TallyHistogram(
      "qiao_relay_request_duration_seconds",
      "Relay calls from arrival to end (a stream's last event), in seconds",
      ["model", "channel"],
      DURATION_BUCKETS,
      registry,
    ),
    firstToken: new TallyHistogram(
      "qiao_relay_first_token_seconds",
      "Streamed relay calls from arrival to the first token, in seconds",
      ["model", "channel"],
      FIRST_TOKEN_BUCKETS,
      registry,
    ),
    tokens: new TallyCounter(
      "qiao_relay_tokens_total",
      "Tokens billed, by model and kind (prompt and completion; cached, cache_write and reasoning are parts of them)",
      ["model", "kind"],
      registry,
    ),
    quota: new TallyCounter("qiao_quota_consumed_total", "Quota charged for relay calls, by model", ["model"], registry),
    upstreamErrors: new TallyCounter(
      "qiao_upstream_errors_total",
      "Failed upstream attempts, by channel id and reason (the HTTP status after the channel's mapping; 502 for a connection that failed)",
      ["channel", "reason"],
      registry,
    ),
    billingWriteFailures: new Counter({
      name: "qiao_billing_write_failures_total",
      help: "Batched usage writes of the quota ledger that failed (they are retried)",
      registers: [registry],
    }),
  };
  new Gauge({
    name: "qiao_channels",
    help: "Channels by state: enabled, disabled (by hand or automatically), open (circuit breaker open)",
    labelNames: ["state"] as const,
    registers: [registry],
    // Every process sees the same channels: the instance's value is the largest any reports.
    aggregator: "max",
    async collect() {
      const c = await sources.channels?.();
      this.reset();
      if (!c) return;
      this.set({ state: "enabled" }, c.enabled);
      this.set({ state: "disabled" }, c.disabled);
      this.set({ state: "open" }, c.open);
    },
  });
  const loopDelay = loopDelayP99();
  new Gauge({
    name: "qiao_event_loop_delay_p99_seconds",
    help: `p99 event-loop delay of each process of the instance over the last 5 to 10 seconds, beyond the ${LOOP_RESOLUTION_MS} ms sampling interval`,
    labelNames: ["process"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      this.set({ process: processLabel() }, loopDelay());
    },
  });
  new Gauge({
    name: "qiao_streams_in_flight",
    help: "Streamed relay answers being sent now",
    registers: [registry],
    collect() {
      this.set(streams.open);
    },
  });
  new Gauge({
    name: "qiao_ledger_holds",
    help: "Quota holds this instance has open",
    registers: [registry],
    collect() {
      this.set(sources.holds?.()?.open ?? 0);
    },
  });
  new Gauge({
    name: "qiao_ledger_held_quota",
    help: "Quota held by the open holds and not yet consumed",
    registers: [registry],
    collect() {
      this.set(sources.holds?.()?.quota ?? 0);
    },
  });
  return { registry, metrics, sources, streams };
}

const state = processSingleton("metrics", makeMetrics);

/** This process's registry. */
export const metricsRegistry: Registry = state.registry;
/** The relay's counters and histograms (recorded through lib/metrics/relay.ts). */
export const relayMetrics = state.metrics;
/** Streams open now (lib/relay/call/stream-response.ts adds and takes away). */
export const streamsOpen = state.streams;

/** Sets where the scrape-time gauges read from (each source replaces one set before). */
export function setMetricsSources(sources: MetricsSources): void {
  Object.assign(state.sources, sources);
}

/** A ledger batch failed to write. */
export function billingWriteFailed(): void {
  relayMetrics.billingWriteFailures.inc();
}
