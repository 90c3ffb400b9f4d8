// The token drawer's rules (browser-side) (spec §5 Token form), pure so they are unit-tested: expiry text to
// seconds and the body sent to POST/PUT /api/token/ (a batch is one POST with `count`; the server names it),
// checked by the API's own schemas before it is sent.
import { BATCH_MSG } from "@/lib/tokens/batch";
import { budgetRefusal, tokenCreateSchema, tokenUpdateSchema } from "@/lib/tokens/schemas";

export const TOKEN_FORM_MSG = {
  expiryFormat: "过期时间格式错误！",
  countInvalid: BATCH_MSG.countInvalid,
  created: (n: number) => `${n}个令牌创建成功，请在列表页面点击复制获取令牌！`,
  updated: "令牌更新成功！",
  noneSelected: "请至少选择一个令牌！",
  noGroups: "管理员未设置用户可选分组",
} as const;

/** Quick expiry buttons: never, one hour, one day, one month (30 days). */
export const EXPIRY_PRESETS = [
  { label: "永不过期", seconds: 0 },
  { label: "一小时", seconds: 3600 },
  { label: "一天", seconds: 86400 },
  { label: "一个月", seconds: 30 * 86400 },
] as const;

export const QUOTA_PRESETS_DOLLARS = [1, 10, 50, 100, 500, 1000] as const;
export const BATCH_PRESETS = [10, 20, 30, 100] as const;

export type TokenFormValues = {
  name: string;
  /** "" = never; otherwise a date-time text such as 2026-12-01 08:00:00 (the viewer's local time). */
  expiry: string;
  remain_quota: number | string;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  group: string;
  count: number | string;
  /** The key's own limits (限制): 0 or empty = none. */
  rpm_limit: number | string;
  tpm_limit: number | string;
  concurrency_limit: number | string;
  /** Quota units, entered like remain_quota. */
  budget_quota: number | string;
  /** "" = 不重置 (no budget), else day, week or month. */
  budget_period: string;
};

/** The form fields of the 限制 section, so the drawer opens it when one of them is refused. */
export const LIMIT_FORM_FIELDS = ["rpm_limit", "tpm_limit", "concurrency_limit", "budget_quota", "budget_period"] as const;

/** Unix seconds of the expiry text, -1 for never, null when it does not read as a date. */
export function parseExpiry(text: string): number | null {
  const t = text.trim();
  if (!t || t === "-1") return -1;
  // "YYYY-MM-DD HH:mm[:ss]" is read as local time in every browser once the space is a T.
  const iso = /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(:\d{2})?$/.test(t) ? t.replace(" ", "T") : t;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : Math.ceil(ms / 1000);
}

export type TokenBody = {
  name: string;
  remain_quota: number;
  expired_time: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
  rpm_limit: number;
  tpm_limit: number;
  concurrency_limit: number;
  budget_quota: number;
  budget_period: string;
};

/** The edit's body has no id yet (the drawer adds it) and never a status. */
const editSchema = tokenUpdateSchema.omit({ id: true, status: true });

/** The form field each body field comes from. */
const FIELD_OF: Record<string, keyof TokenFormValues> = {
  name: "name",
  remain_quota: "remain_quota",
  expired_time: "expiry",
  model_limits: "model_limits",
  allow_ips: "allow_ips",
  group: "group",
  count: "count",
  rpm_limit: "rpm_limit",
  tpm_limit: "tpm_limit",
  concurrency_limit: "concurrency_limit",
  budget_quota: "budget_quota",
  budget_period: "budget_period",
};

/** A refusal names the field it is about, so the drawer can mark and reveal it. */
export type BuiltBody = { ok: true; body: TokenBody; count: number } | { ok: false; field: keyof TokenFormValues; message: string };

/** The schema's first issue, on the form field it is about. */
function refusal(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): BuiltBody {
  const field = FIELD_OF[String(issues[0]?.path[0])] ?? "name";
  return { ok: false, field, message: issues[0]?.message ?? "" };
}

/** A number field's text as sent: empty is 0, anything else as typed, for the schema to judge. */
const limitValue = (v: number | string): number => (String(v).trim() === "" ? 0 : Number(v));

/** The body to send, and for a create how many tokens it asks for (count 1 on an edit). */
export function buildTokenBody(values: TokenFormValues, mode: "create" | "edit"): BuiltBody {
  const expired_time = parseExpiry(values.expiry);
  if (expired_time === null) return { ok: false, field: "expiry", message: TOKEN_FORM_MSG.expiryFormat };
  const quota = Number.parseInt(String(values.remain_quota), 10);
  const base: TokenBody = {
    name: values.name.trim(),
    remain_quota: Number.isNaN(quota) ? 0 : quota,
    expired_time,
    unlimited_quota: values.unlimited_quota,
    model_limits_enabled: values.model_limits_enabled,
    model_limits: values.model_limits.join(","),
    allow_ips: values.allow_ips,
    group: values.group,
    rpm_limit: limitValue(values.rpm_limit),
    tpm_limit: limitValue(values.tpm_limit),
    concurrency_limit: limitValue(values.concurrency_limit),
    budget_quota: limitValue(values.budget_quota),
    budget_period: values.budget_period,
  };
  const parsed = mode === "edit" ? editSchema.safeParse(base) : tokenCreateSchema.safeParse({ ...base, count: values.count });
  if (!parsed.success) return refusal(parsed.error.issues);
  const budget = budgetRefusal(base.budget_quota, base.budget_period);
  if (budget) return { ok: false, ...budget };
  return { ok: true, body: base, count: mode === "edit" ? 1 : ((parsed.data as { count?: number }).count ?? 1) };
}
