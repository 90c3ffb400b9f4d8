// The data dashboard's charts from the usage buckets (GET /api/data rows): sums per period (hour,
// day or week in the viewer's time zone; weeks start on Monday) and per model or user, every
// period of the range present (empty ones as zero) so the time axis is even. Pure, so the server
// render and the browser agree and it is unit-tested.
import { formatTimestamp } from "@/lib/ui/format";

export const GRANULARITIES = ["hour", "day", "week"] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const GRANULARITY_LABEL: Record<Granularity, string> = { hour: "小时", day: "天", week: "周" };

export const isGranularity = (v: string): v is Granularity => (GRANULARITIES as readonly string[]).includes(v);

/** How far back the page looks by default for each granularity (new-api's Detail page). */
export const DEFAULT_SPAN: Record<Granularity, number> = { hour: 86400, day: 7 * 86400, week: 30 * 86400 };

/** The default range: the granularity's span back from now, to an hour ahead (as the log page). */
export function defaultRange(granularity: Granularity, now: number): { start: number; end: number } {
  return { start: now - DEFAULT_SPAN[granularity], end: now + 3600 };
}

export type UsageRow = {
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
};
export type Dimension = "model" | "user";
export type Metric = "quota" | "count" | "token_used";
const METRICS: Metric[] = ["quota", "count", "token_used"];

/** Series beyond this many (by quota) are summed into one. */
export const MAX_SERIES = 8;
export const OTHERS = "其他";

function localParts(seconds: number, timeZone?: string) {
  // "YYYY-MM-DD HH:MM:SS" in the zone; the epoch itself reads as its first second.
  const t = formatTimestamp(Math.max(1, seconds), timeZone);
  return { y: t.slice(0, 4), m: t.slice(5, 7), d: t.slice(8, 10), h: t.slice(11, 13) };
}

/** The period holding `seconds`: a sortable key and its axis label. */
export function periodOf(seconds: number, granularity: Granularity, timeZone?: string): { key: string; label: string } {
  const { y, m, d, h } = localParts(seconds, timeZone);
  if (granularity === "hour") return { key: `${y}-${m}-${d} ${h}`, label: `${m}-${d} ${h}:00` };
  if (granularity === "day") return { key: `${y}-${m}-${d}`, label: `${m}-${d}` };
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  const iso = date.toISOString().slice(0, 10);
  return { key: iso, label: `${iso.slice(5)} 起` };
}

export type UsageSeries = {
  /** One entry per period, oldest first: `period` (the label) and a value per series name. */
  data: Record<Metric, Array<Record<string, string | number>>>;
  /** Series names, largest quota first (OTHERS last when present). */
  series: string[];
  /** Quota per series over the whole range, in `series` order. */
  shares: { name: string; quota: number }[];
  totals: { quota: number; count: number; token_used: number };
};

const nameOf = (row: UsageRow, dimension: Dimension) =>
  dimension === "model" ? row.model_name || "（无模型）" : row.username || `#${row.user_id}`;

export function buildUsageSeries(
  rows: UsageRow[],
  o: { start: number; end: number; granularity: Granularity; dimension: Dimension; timeZone?: string },
): UsageSeries {
  const totals = { quota: 0, count: 0, token_used: 0 };
  const byName = new Map<string, number>();
  for (const r of rows) {
    totals.quota += r.quota;
    totals.count += r.count;
    totals.token_used += r.token_used;
    const name = nameOf(r, o.dimension);
    byName.set(name, (byName.get(name) ?? 0) + r.quota);
  }
  const ranked = [...byName].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const kept = new Set(ranked.slice(0, ranked.length > MAX_SERIES ? MAX_SERIES - 1 : MAX_SERIES).map(([n]) => n));
  const seriesOf = (name: string) => (kept.has(name) ? name : OTHERS);
  const series = ranked.filter(([n]) => kept.has(n)).map(([n]) => n);
  const shares = ranked.filter(([n]) => kept.has(n)).map(([name, quota]) => ({ name, quota }));
  if (ranked.length > kept.size) {
    series.push(OTHERS);
    shares.push({ name: OTHERS, quota: ranked.filter(([n]) => !kept.has(n)).reduce((s, [, q]) => s + q, 0) });
  }

  // Every period of the range, stepping an hour at a time (a day is not always 24 hours locally).
  const periods = new Map<string, string>();
  const first = Math.min(o.start, o.end);
  for (let t = first - (first % 3600); t <= o.end; t += 3600) {
    const p = periodOf(t, o.granularity, o.timeZone);
    periods.set(p.key, p.label);
  }
  for (const r of rows) {
    const p = periodOf(r.created_at, o.granularity, o.timeZone);
    periods.set(p.key, p.label);
  }
  const keys = [...periods.keys()].sort();
  const table = (): Map<string, Record<string, number>> => new Map(keys.map((k) => [k, Object.fromEntries(series.map((n) => [n, 0]))]));
  const cells: Record<Metric, Map<string, Record<string, number>>> = { quota: table(), count: table(), token_used: table() };
  for (const r of rows) {
    const k = periodOf(r.created_at, o.granularity, o.timeZone).key;
    const s = seriesOf(nameOf(r, o.dimension));
    for (const metric of METRICS) cells[metric].get(k)![s]! += r[metric];
  }
  const rowsOf = (metric: Metric) => keys.map((k) => ({ period: periods.get(k)!, ...cells[metric].get(k)! }));
  const data = { quota: rowsOf("quota"), count: rowsOf("count"), token_used: rowsOf("token_used") };
  return { data, series, shares, totals };
}

/** Average requests and tokens per minute over the range, as the log page's badges read. */
export function perMinute(totals: { count: number; token_used: number }, start: number, end: number) {
  const minutes = Math.max(1, (end - start) / 60);
  return { rpm: totals.count / minutes, tpm: totals.token_used / minutes };
}
