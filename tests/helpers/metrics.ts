// Reading Prometheus metrics in tests: a series' value from this process's registry, and every
// label value of an exposition text (for the hygiene checks).
import { metricsRegistry } from "@/lib/metrics/registry";

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

/** The series of `name` in this process's registry. */
export async function metricValues(name: string): Promise<Value[]> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values as Value[];
}

/** The value of the first series of `name` (or its `_bucket`/`_sum`/`_count`: `metricName`) with `labels`; 0 when none. */
export async function metricValue(name: string, labels: Record<string, string>, metricName = name): Promise<number> {
  const all = await metricValues(name);
  const hit = all.find((v) => (v.metricName ?? name) === metricName && Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l));
  return hit?.value ?? 0;
}

/** Every label value in a Prometheus text exposition. */
export function labelValues(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\w+="((?:[^"\\]|\\.)*)"/g)) out.push(m[1]!);
  return out;
}
