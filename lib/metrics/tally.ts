// Counters and histograms for what every relay call records, read by prom-client's registry at
// scrape time. prom-client's own children hash their label values, check them and build a label
// object on every `inc` and `observe` (about 0.4 µs and a few hundred bytes each, five or six per
// call); a series here is a plain object whose numbers are added to, found once per label values
// and kept by the caller (lib/metrics/relay.ts). The registry reads them through `get()`, in the
// shape prom-client's own metrics give (`getMetricsAsJSON`, so the primary's aggregation of its
// workers is unchanged). Imports nothing but prom-client's types: the primary loads it too.
import type { Metric, MetricValueWithName, Registry } from "prom-client";

type Labels = Record<string, string | number>;
type Value = MetricValueWithName<string>;
/** What prom-client's metrics' `get()` gives. */
type Exported = { name: string; help: string; type: "counter" | "histogram"; values: Value[]; aggregator: "sum" };

/** A counter's series: `inc` adds a finite amount above 0 and ignores anything else. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    if (by > 0 && by < Infinity) this.value += by;
  }
  reset(): void {
    this.value = 0;
  }
}

/** A histogram's series: a count per bucket (not cumulative; the last is above every bound), sum and count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  /** Counts `value` in the first bucket whose upper bound it does not exceed; ignores a value that is not finite. */
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** What the two kinds share: the series by their label values, registration, reset. */
abstract class Tally<S extends CounterSeries | HistogramSeries> {
  readonly aggregator = "sum" as const;
  private readonly series = new Map<string, S>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    // The registry calls name, help, type, get() and reset(): the shape of prom-client's metrics.
    registry.registerMetric(this as unknown as Metric);
  }
  protected abstract make(labels: Labels): S;
  protected abstract exported(series: S, into: Value[]): void;
  abstract readonly type: "counter" | "histogram";

  /** The series of these label values (in labelNames' order), made the first time. Keep it: looking it up builds a key. */
  labels(...values: string[]): S {
    const key = JSON.stringify(values);
    let series = this.series.get(key);
    if (!series) {
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => {
        labels[name] = values[i] ?? "";
      });
      series = this.make(labels);
      this.series.set(key, series);
    }
    return series;
  }

  get(): Exported {
    const values: Value[] = [];
    for (const series of this.series.values()) this.exported(series, values);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Every series back to zero; a series a caller kept stays the one counted. */
  reset(): void {
    for (const series of this.series.values()) series.reset();
  }
}

export class TallyCounter extends Tally<CounterSeries> {
  readonly type = "counter" as const;
  protected make(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }
  protected exported(series: CounterSeries, into: Value[]): void {
    into.push({ labels: { ...series.labels }, value: series.value });
  }
}

export class TallyHistogram extends Tally<HistogramSeries> {
  readonly type = "histogram" as const;
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, registry);
  }
  protected make(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }
  /** As prom-client exports one: cumulative `_bucket` per bound and `+Inf`, then `_sum` and `_count`. */
  protected exported(series: HistogramSeries, into: Value[]): void {
    const bucket = `${this.name}_bucket`;
    let below = 0;
    this.bounds.forEach((le, i) => {
      below += series.counts[i]!;
      into.push({ labels: { ...series.labels, le }, value: below, metricName: bucket });
    });
    into.push({ labels: { ...series.labels, le: "+Inf" }, value: series.count, metricName: bucket });
    into.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
    into.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
  }
}
