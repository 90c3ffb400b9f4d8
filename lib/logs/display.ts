// How a log row reads on /log (spec §3 log entry, §9 colours): type names, latency colours, the
// retry chain, and the charge written out from `other` so a user can redo the sum by hand. Pure,
// so the page and its unit tests share one copy; the formulas are lib/billing/price.ts's.
import { plain } from "@/lib/billing/price";
import { LOG_TYPE } from "@/lib/logs/write";

/** The type filter (spec §4: 0 all, 1–4) and the relay's error rows (5). */
export const LOG_TYPE_OPTIONS: { value: string; label: string }[] = [
  { value: "0", label: "全部" },
  { value: String(LOG_TYPE.topup), label: "充值" },
  { value: String(LOG_TYPE.consume), label: "消费" },
  { value: String(LOG_TYPE.manage), label: "管理" },
  { value: String(LOG_TYPE.system), label: "系统" },
  { value: String(LOG_TYPE.error), label: "错误" },
];

/**
 * The label of the stat badge's quota sum for the type filter (spec §2 Log page: "total quota
 * consumed"). The sum is of the chosen type's rows (lib/logs/query.ts statOf, consumption when
 * none is chosen), so a top-up filter sums top-ups. Admin and system rows record no quota (their
 * amounts are in the text), so for them the badge is left out rather than read a sum of zeros.
 */
export function statQuotaLabel(type: number): string | null {
  if (type === LOG_TYPE.topup) return "充值额度";
  if (type === LOG_TYPE.manage || type === LOG_TYPE.system) return null;
  return "消耗额度";
}

const TYPE_LOOK: Record<number, { label: string; color: string }> = {
  [LOG_TYPE.topup]: { label: "充值", color: "cyan" },
  [LOG_TYPE.consume]: { label: "消费", color: "green" },
  [LOG_TYPE.manage]: { label: "管理", color: "orange" },
  [LOG_TYPE.system]: { label: "系统", color: "violet" },
  [LOG_TYPE.error]: { label: "错误", color: "red" },
};

export function logTypeLook(type: number): { label: string; color: string } {
  return TYPE_LOOK[type] ?? { label: "未知", color: "gray" };
}

/** Spec §9: the whole request under 101 s green, under 300 s orange, else red. */
export function latencyColor(seconds: number): "green" | "orange" | "red" {
  return seconds < 101 ? "green" : seconds < 300 ? "orange" : "red";
}

/** Spec §9: the first token under 3 s green, under 10 s orange, else red. */
export function firstTokenColor(seconds: number): "green" | "orange" | "red" {
  return seconds < 3 ? "green" : seconds < 10 ? "orange" : "red";
}

/** The keys of `other` the page reads (new-api's names, plus the relay's own). */
export type LogOther = {
  frt?: number;
  admin_info?: { use_channel?: unknown[]; error_message?: string; breaker_opened?: unknown[]; breaker_skipped?: unknown };
  model_ratio?: number;
  model_price?: number;
  completion_ratio?: number;
  group_ratio?: number;
  cache_tokens?: number;
  cache_ratio?: number;
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  audio?: boolean;
  ws?: boolean;
  audio_ratio?: number;
  audio_completion_ratio?: number;
  audio_input?: number;
  audio_output?: number;
  text_input?: number;
  text_output?: number;
  image?: boolean;
  image_size?: string;
  image_quality?: string;
  image_n?: number;
  image_size_ratio?: number;
  image_quality_ratio?: number;
  default_ratio?: boolean;
  upstream_usage?: boolean;
  client_gone?: boolean;
  stream_end?: string;
  /** The upstream reported more than the call could use; it was billed at the bounds (lib/billing/usage-bounds.ts). */
  usage_anomaly?: { prompt_tokens?: number; completion_tokens?: number; prompt_limit?: number; completion_limit?: number };
  is_model_mapped?: boolean;
  upstream_model_name?: string;
  request_path?: string;
  status_code?: number;
  error_type?: string;
  error_code?: string | number | null;
};

/** `other` as an object; anything that is not a JSON object reads as empty. */
export function parseOther(other: string): LogOther {
  if (!other) return {};
  try {
    const value: unknown = JSON.parse(other);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as LogOther) : {};
  } catch {
    return {};
  }
}

/** Seconds to the first token, when the row recorded one (new-api writes -1000 for "never"). */
export function firstTokenSeconds(o: LogOther): number | null {
  return typeof o.frt === "number" && o.frt >= 0 ? o.frt / 1000 : null;
}

/** The channels tried, in order (admins only; `/api/log/self` drops admin_info). */
export function retryChain(o: LogOther): string[] {
  const list = o.admin_info?.use_channel;
  return Array.isArray(list) ? list.map(String) : [];
}

/**
 * The circuit breaker's part in the request (admins only): the channels its failures opened and
 * how many open channels the choice passed over; null when neither.
 */
export function breakerNote(o: LogOther): string | null {
  const opened = o.admin_info?.breaker_opened;
  const skipped = o.admin_info?.breaker_skipped;
  const parts: string[] = [];
  if (Array.isArray(opened) && opened.length > 0) parts.push(`熔断了渠道 ${opened.map(String).join("、")}`);
  if (typeof skipped === "number" && skipped > 0) parts.push(`跳过 ${skipped} 个熔断中的渠道`);
  return parts.length ? parts.join("；") : null;
}

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export { plain };

/**
 * The expanded row's line for a usage anomaly: what the upstream reported and that the row was
 * billed within the request's bounds instead. Null when the row has none.
 */
export function usageAnomalyText(o: LogOther, row: { prompt_tokens: number; completion_tokens: number }): string | null {
  const a = o.usage_anomaly;
  if (!a || typeof a !== "object") return null;
  return `上游报告 提示 ${n(a.prompt_tokens)} / 补全 ${n(a.completion_tokens)} tokens，超出本次请求可能的用量，已按 提示 ${row.prompt_tokens} / 补全 ${row.completion_tokens} 计费`;
}

export type ChargeExplanation = {
  /** The ratios and prices that applied, one "name value" each. */
  factors: { label: string; value: string }[];
  /** The sum written out, ending in the exact value before rounding. */
  formula: string;
  /** The rounded result the formula gives (what the row should have charged). */
  computed: number;
  /** Per 1M tokens in US$, for ratio-billed rows (spec §9: ratio × 2 × group ratio). */
  per_million?: { input: number; output: number };
};

/** Round half up, at least 1 unless the multiplier is free (lib/billing/price.ts finalQuota). */
function settle(total: number, multiplier: number): number {
  if (multiplier === 0) return 0;
  return Math.max(1, Math.floor(total + 0.5 + 1e-9));
}

/**
 * The charge of a consumption row written out from its `other` breakdown, or null when the row
 * carries none (top-ups, admin and system rows, rows from before the relay wrote `other`).
 */
export function explainCharge(
  row: { prompt_tokens: number; completion_tokens: number },
  o: LogOther,
  /** The QuotaPerUnit option: the quota a per-call price of US$1 costs (the relay bills with it). */
  quotaPerUnit: number,
): ChargeExplanation | null {
  if (typeof o.model_ratio !== "number" && typeof o.model_price !== "number") return null;
  const group = typeof o.group_ratio === "number" ? o.group_ratio : 1;
  const price = n(o.model_price);
  if (typeof o.model_price === "number" && price >= 0) {
    const parts = [`$${plain(price)}`];
    const factors = [{ label: "模型价格", value: `$${plain(price)} / 次` }];
    let total = price;
    if (o.image) {
      const size = typeof o.image_size_ratio === "number" ? o.image_size_ratio : 1;
      const quality = typeof o.image_quality_ratio === "number" ? o.image_quality_ratio : 1;
      const count = n(o.image_n) || 1;
      factors.push({ label: "尺寸倍率", value: `${plain(size)}（${o.image_size ?? ""}）` });
      factors.push({ label: "品质倍率", value: `${plain(quality)}${o.image_quality ? `（${o.image_quality}）` : ""}` });
      factors.push({ label: "数量", value: String(count) });
      parts.push(plain(size), plain(quality), String(count));
      total *= size * quality * count;
    }
    factors.push({ label: "分组倍率", value: plain(group) });
    parts.push(plain(group), plain(quotaPerUnit));
    total *= group * quotaPerUnit;
    return { factors, formula: `${parts.join(" × ")} = ${plain(total)}`, computed: settle(total, price * group) };
  }

  const model = n(o.model_ratio);
  const completionRatio = typeof o.completion_ratio === "number" ? o.completion_ratio : 1;
  const prompt = Math.max(0, Math.floor(row.prompt_tokens));
  const completion = Math.max(0, Math.floor(row.completion_tokens));
  const cached = n(o.cache_tokens);
  const cacheWrite = n(o.cache_creation_tokens);
  const audioIn = n(o.audio_input);
  const audioOut = n(o.audio_output);
  const audioRatio = n(o.audio_ratio);
  const audioCompletion = n(o.audio_completion_ratio);
  const textIn = prompt - cached - cacheWrite - audioIn;
  const textOut = completion - audioOut;

  const factors = [
    { label: "模型倍率", value: plain(model) },
    { label: "补全倍率", value: plain(completionRatio) },
    { label: "分组倍率", value: plain(group) },
  ];
  const terms = [`提示 ${textIn}`];
  let sum = textIn;
  if (cached > 0) {
    const r = n(o.cache_ratio);
    factors.push({ label: "缓存倍率", value: plain(r) });
    terms.push(`缓存 ${cached} × ${plain(r)}`);
    sum += cached * r;
  }
  if (cacheWrite > 0) {
    const r = n(o.cache_creation_ratio);
    factors.push({ label: "缓存写入倍率", value: plain(r) });
    terms.push(`缓存写入 ${cacheWrite} × ${plain(r)}`);
    sum += cacheWrite * r;
  }
  if (o.audio || audioIn > 0 || audioOut > 0) {
    factors.push({ label: "音频倍率", value: plain(audioRatio) }, { label: "音频补全倍率", value: plain(audioCompletion) });
  }
  if (audioIn > 0) {
    terms.push(`音频输入 ${audioIn} × ${plain(audioRatio)}`);
    sum += audioIn * audioRatio;
  }
  terms.push(`补全 ${textOut} × ${plain(completionRatio)}`);
  sum += textOut * completionRatio;
  if (audioOut > 0) {
    terms.push(`音频输出 ${audioOut} × ${plain(audioRatio)} × ${plain(audioCompletion)}`);
    sum += audioOut * audioRatio * audioCompletion;
  }
  const total = sum * model * group;
  return {
    factors,
    formula: `(${terms.join(" + ")}) × ${plain(model)} × ${plain(group)} = ${plain(total)}`,
    computed: settle(total, model * group),
    per_million: { input: model * 2 * group, output: model * 2 * group * completionRatio },
  };
}
