// What a relay call records when it ends (lib/relay/call/settle.ts) and when an attempt fails
// (attempts.ts). On the hot path: two Map lookups (model, then channel id) give the series
// (lib/metrics/tally.ts) found the first time that pair was seen, then a handful of additions to
// plain numbers; nothing async, nothing allocated per call. Label values are bounded: at most
// MAX_MODEL_LABELS models and MAX_CHANNEL_LABELS channels per process, the rest counted as "other".
import type { Usage } from "@/lib/billing/usage";
import { MAX_CHANNEL_LABELS, MAX_MODEL_LABELS, NO_CHANNEL_LABEL, OTHER_LABEL, relayMetrics as m } from "@/lib/metrics/registry";
import type { CounterSeries, HistogramSeries } from "@/lib/metrics/tally";
import { processSingleton } from "@/lib/singleton";

type Counted = CounterSeries;
type Observed = HistogramSeries;

const STATUS_CLASSES = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"] as const;

/** `status`'s class label: "2xx"…"5xx" ("other" outside 100–599). */
export function statusClass(status: number): string {
  const c = Math.floor(status / 100);
  return STATUS_CLASSES[c >= 1 && c <= 5 ? c : 0]!;
}

/** One model × channel pair's children. */
class ChannelSeries {
  readonly ok: Counted;
  readonly duration: Observed;
  readonly firstToken: Observed;
  private readonly byClass: (Counted | undefined)[] = [];
  constructor(
    private readonly model: string,
    private readonly channel: string,
  ) {
    this.ok = m.requests.labels(model, channel, "2xx");
    this.duration = m.duration.labels(model, channel);
    this.firstToken = m.firstToken.labels(model, channel);
  }
  /** The requests counter of `status`'s class. */
  ended(status: number): Counted {
    const c = Math.floor(status / 100);
    const at = c >= 1 && c <= 5 ? c : 0;
    return (this.byClass[at] ??= m.requests.labels(this.model, this.channel, STATUS_CLASSES[at]!));
  }
}

/** One model's children, and its channels'. */
class ModelSeries {
  readonly prompt: Counted;
  readonly completion: Counted;
  readonly cached: Counted;
  readonly cacheWrite: Counted;
  readonly reasoning: Counted;
  readonly quota: Counted;
  readonly channels = new Map<number, ChannelSeries>();
  constructor(readonly label: string) {
    this.prompt = m.tokens.labels(label, "prompt");
    this.completion = m.tokens.labels(label, "completion");
    this.cached = m.tokens.labels(label, "cached");
    this.cacheWrite = m.tokens.labels(label, "cache_write");
    this.reasoning = m.tokens.labels(label, "reasoning");
    this.quota = m.quota.labels(label);
  }
  channel(id: number): ChannelSeries {
    let series = this.channels.get(id);
    if (!series) this.channels.set(id, (series = new ChannelSeries(this.label, channelLabel(id))));
    return series;
  }
}

const cache = processSingleton("metricsRelaySeries", () => ({
  models: new Map<string, ModelSeries>(),
  other: null as ModelSeries | null,
  channelLabels: new Map<number, string>(),
}));

/** The series of `model`: its own among the first MAX_MODEL_LABELS, else the shared "other". */
function modelSeries(model: string): ModelSeries {
  const series = cache.models.get(model);
  if (series) return series;
  if (cache.models.size < MAX_MODEL_LABELS) {
    const made = new ModelSeries(model);
    cache.models.set(model, made);
    return made;
  }
  return (cache.other ??= new ModelSeries(OTHER_LABEL));
}

/** A channel id's label: the id (0: none tried), or "other" past MAX_CHANNEL_LABELS. */
function channelLabel(id: number): string {
  if (id <= 0) return NO_CHANNEL_LABEL;
  let label = cache.channelLabels.get(id);
  if (label === undefined) {
    label = cache.channelLabels.size < MAX_CHANNEL_LABELS ? String(id) : OTHER_LABEL;
    cache.channelLabels.set(id, label);
  }
  return label;
}

/**
 * A call answered by `channelId` ended (settle): its request, duration, first token (`firstTokenMs`
 * from its start, a stream's; negative when none came or it was not streamed), tokens and quota.
 */
export function recordAnswered(
  model: string,
  channelId: number,
  startedAt: number,
  firstTokenMs: number,
  usage: Usage,
  quota: number,
): void {
  const series = modelSeries(model);
  const channel = series.channel(channelId);
  channel.ok.inc();
  channel.duration.observe((Date.now() - startedAt) / 1000);
  if (firstTokenMs >= 0) channel.firstToken.observe(firstTokenMs / 1000);
  series.prompt.inc(usage.prompt_tokens);
  series.completion.inc(usage.completion_tokens);
  if (usage.cached_tokens > 0) series.cached.inc(usage.cached_tokens);
  if (usage.cache_write_tokens > 0) series.cacheWrite.inc(usage.cache_write_tokens);
  if (usage.reasoning_tokens > 0) series.reasoning.inc(usage.reasoning_tokens);
  if (quota > 0) series.quota.inc(quota);
}

/** A call ended without an answer (`status`), after trying `channelId` last (0: none). */
export function recordFailed(model: string, channelId: number, startedAt: number, status: number): void {
  const channel = modelSeries(model).channel(channelId);
  channel.ended(status).inc();
  channel.duration.observe((Date.now() - startedAt) / 1000);
}

/** An attempt on `channelId` failed with `status` (after the channel's status mapping). */
export function recordUpstreamError(channelId: number, status: number): void {
  m.upstreamErrors.labels(channelLabel(channelId), String(status)).inc();
}
