// The relay's own counters and histograms read as prom-client's would: the same JSON for the same
// observations, the same text exposition, summed across processes by prom-client's aggregation.
import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { TallyCounter, TallyHistogram } from "@/lib/metrics/tally";

const BOUNDS = [0.05, 0.1, 0.25, 1, 2.5];
const OBSERVED = [0.01, 0.05, 0.0500001, 0.3, 1, 2.5, 7, 300, 0];

function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const counter = new TallyCounter("t_calls_total", "Calls", ["model", "channel"], ours);
  const histogram = new TallyHistogram("t_seconds", "Seconds", ["model", "channel"], BOUNDS, ours);
  const promCounter = new Counter({ name: "t_calls_total", help: "Calls", labelNames: ["model", "channel"], registers: [theirs] });
  const promHistogram = new Histogram({
    name: "t_seconds",
    help: "Seconds",
    labelNames: ["model", "channel"],
    buckets: BOUNDS,
    registers: [theirs],
  });
  return { ours, theirs, counter, histogram, promCounter, promHistogram };
}

/** A registry's JSON without prom-client's empty exemplars (ours have none). */
async function json(registry: Registry) {
  return (await registry.getMetricsAsJSON()).map((metric) => ({
    ...metric,
    values: metric.values.map((whole) => {
      const { exemplar, ...value } = whole as typeof whole & { exemplar?: unknown };
      expect(exemplar ?? null).toBeNull();
      return value;
    }),
  }));
}

/** The exposition's lines, each line's labels sorted, the lines sorted: order is not part of the format. */
function normalized(text: string): string[] {
  return text
    .trim()
    .split("\n")
    .map((line) => line.replace(/\{([^}]*)\}/, (_, labels: string) => `{${labels.split(",").sort().join(",")}}`))
    .sort();
}

describe("tally metrics", () => {
  it("give the JSON and the text prom-client gives for the same calls", async () => {
    const { ours, theirs, counter, histogram, promCounter, promHistogram } = pair();
    for (const [model, channel] of [
      ["a", "1"],
      ["b", "2"],
    ] as const) {
      const c = counter.labels(model, channel);
      const h = histogram.labels(model, channel);
      for (const v of OBSERVED) {
        c.inc();
        c.inc(3);
        h.observe(v);
        promCounter.inc({ model, channel });
        promCounter.inc({ model, channel }, 3);
        promHistogram.observe({ model, channel }, v);
      }
    }
    expect(await json(ours)).toEqual(await json(theirs));
    expect(normalized(await ours.metrics())).toEqual(normalized(await theirs.metrics()));
    // A value equal to a bound is in that bound's bucket; one above every bound only in +Inf.
    expect(await ours.metrics()).toContain('t_seconds_bucket{model="a",channel="1",le="0.05"} 3');
    expect(await ours.metrics()).toContain('t_seconds_bucket{model="a",channel="1",le="2.5"} 7');
    expect(await ours.metrics()).toContain('t_seconds_bucket{model="a",channel="1",le="+Inf"} 9');
  });

  it("are summed across processes by prom-client's aggregation", async () => {
    const one = pair();
    const two = pair();
    one.counter.labels("a", "1").inc(2);
    two.counter.labels("a", "1").inc(5);
    two.counter.labels("b", "1").inc();
    one.histogram.labels("a", "1").observe(0.2);
    two.histogram.labels("a", "1").observe(3);
    const merged = AggregatorRegistry.aggregate([await one.ours.getMetricsAsJSON(), await two.ours.getMetricsAsJSON()]);
    const text = await merged.metrics();
    expect(text).toContain('t_calls_total{model="a",channel="1"} 7');
    expect(text).toContain('t_calls_total{model="b",channel="1"} 1');
    expect(text).toContain('t_seconds_bucket{model="a",channel="1",le="0.25"} 1');
    expect(text).toContain('t_seconds_bucket{model="a",channel="1",le="+Inf"} 2');
    expect(text).toContain('t_seconds_sum{model="a",channel="1"} 3.2');
  });

  it("ignore what a counter or a histogram cannot take, and keep a series through a reset", async () => {
    const { ours, counter, histogram } = pair();
    const c = counter.labels("a", "1");
    const h = histogram.labels("a", "1");
    c.inc(-1);
    c.inc(Number.NaN);
    c.inc(Infinity);
    h.observe(Number.NaN);
    h.observe(-Infinity);
    expect(c.value).toBe(0);
    expect(h.count).toBe(0);
    c.inc(4);
    h.observe(0.5);
    ours.resetMetrics();
    expect(c.value).toBe(0);
    expect([h.count, h.sum, ...h.counts]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    c.inc();
    expect(counter.labels("a", "1")).toBe(c);
    expect(await ours.metrics()).toContain('t_calls_total{model="a",channel="1"} 1');
  });

  it("keep label values apart, whatever characters they hold", () => {
    const { counter } = pair();
    const odd = counter.labels("a\u0000b", "1");
    const other = counter.labels("a", "b\u00001");
    expect(odd).not.toBe(other);
    expect(odd.labels).toEqual({ model: "a\u0000b", channel: "1" });
  });
});
