// The operation tab's sections (spec §2 Settings → operation): which options each one edits and
// the checks the page makes before saving (the server checks again, lib/options/registry.ts).
// Pure and client-safe.
import { INVALID_JSON_MESSAGE } from "@/lib/options/messages";

export const OPERATION_MSG = {
  /** Spec §5: log cleanup needs a time chosen (the text of DELETE /api/log/'s own check). */
  cleanupTimeRequired: "请选择清理日志的截止时间",
  cleaned: (count: number) => `${count} 条日志已清理！`,
  intervalMin: "数据看板更新间隔不能小于 1 分钟",
  chatsShape: '聊天配置应为 JSON 数组，每一项形如 {"名称": "链接"}',
  rateLimitGroupShape: '分组速率限制应为 JSON 对象，形如 {"default": [200, 100]}：最多请求次数不小于 0，最多请求完成次数不小于 1',
} as const;

export const OPERATION_SECTIONS = {
  general: [
    "TopUpLink",
    "ChatLink",
    "ChatLink2",
    "QuotaPerUnit",
    "RetryTimes",
    "DisplayInCurrencyEnabled",
    "DisplayTokenStatEnabled",
    "DefaultCollapseSidebar",
    "SelfUseModeEnabled",
  ],
  drawing: [
    "DrawingEnabled",
    "MjNotifyEnabled",
    "MjAccountFilterEnabled",
    "MjForwardUrlEnabled",
    "MjModeClearEnabled",
    "MjActionCheckSuccessEnabled",
  ],
  logs: ["LogConsumeEnabled"],
  dashboard: ["DataExportEnabled", "DataExportInterval", "DataExportDefaultTime"],
  monitoring: [
    "ChannelDisableThreshold",
    "QuotaRemindThreshold",
    "ChannelTestInterval",
    "AutomaticDisableChannelEnabled",
    "AutomaticEnableChannelEnabled",
  ],
  quota: ["QuotaForNewUser", "QuotaForInviter", "QuotaForInvitee", "PreConsumedQuota"],
  rateLimit: [
    "ModelRequestRateLimitEnabled",
    "ModelRequestRateLimitDurationMinutes",
    "ModelRequestRateLimitCount",
    "ModelRequestRateLimitSuccessCount",
    "ModelRequestRateLimitGroup",
  ],
  chats: ["Chats"],
} as const;

export type OperationSection = keyof typeof OPERATION_SECTIONS;
export type OperationKey = (typeof OPERATION_SECTIONS)[OperationSection][number];

/** Every key the tab edits: the page sends only these to the client. */
export const OPERATION_KEYS: readonly OperationKey[] = Object.values(OPERATION_SECTIONS).flat();

/** The sensitive-word section's options (components/settings/operation/sensitive-settings.tsx). */
export const SENSITIVE_KEYS = ["CheckSensitiveEnabled", "CheckSensitiveOnPromptEnabled", "SensitiveWords"] as const;
/** The ratio section's options (components/settings/operation/ratio-settings.tsx). */
export const RATIO_KEYS = ["ModelPrice", "ModelRatio", "CompletionRatio", "GroupRatio", "UserUsableGroups", "TopupGroupRatio"] as const;
export type OperationTabKey = OperationKey | (typeof SENSITIVE_KEYS)[number] | (typeof RATIO_KEYS)[number];

/** The options the tab edits, as stored strings, from the list GET /api/option/ answers. */
export function operationValues(list: ReadonlyArray<{ key: string; value: string }>): Record<OperationTabKey, string> {
  const wanted = new Set<string>([...OPERATION_KEYS, ...SENSITIVE_KEYS, ...RATIO_KEYS]);
  const out = {} as Record<OperationTabKey, string>;
  for (const { key, value } of list) if (wanted.has(key)) out[key as OperationTabKey] = value;
  return out;
}

/** Integers ≥ min, and numbers > 0 for QuotaPerUnit, ≥ 0 for ChannelDisableThreshold. */
const INTEGER_MIN: Partial<Record<OperationKey, number>> = {
  RetryTimes: 0,
  DataExportInterval: 1,
  QuotaRemindThreshold: 0,
  ChannelTestInterval: 0,
  QuotaForNewUser: 0,
  QuotaForInviter: 0,
  QuotaForInvitee: 0,
  PreConsumedQuota: 0,
  ModelRequestRateLimitDurationMinutes: 1,
  ModelRequestRateLimitCount: 0,
  ModelRequestRateLimitSuccessCount: 0,
};

/** `{"group": [requests ≥ 0, successes ≥ 1]}`, whole numbers (the server checks the same). */
function isRateLimitGroups(data: unknown): boolean {
  if (!data || typeof data !== "object" || Array.isArray(data)) return false;
  return Object.entries(data).every(
    ([name, pair]) =>
      name.trim() !== "" &&
      Array.isArray(pair) &&
      pair.length === 2 &&
      pair.every((n) => Number.isInteger(n) && n <= 2_147_483_647) &&
      pair[0] >= 0 &&
      pair[1] >= 1,
  );
}

/** The message to show beside a field, or null when the value may be saved. */
export function checkOperationValue(key: OperationKey, value: string): string | null {
  const v = value.trim();
  if (key === "Chats") {
    let data: unknown;
    try {
      data = JSON.parse(v);
    } catch {
      return INVALID_JSON_MESSAGE;
    }
    const ok =
      Array.isArray(data) &&
      data.every(
        (item) =>
          !!item &&
          typeof item === "object" &&
          !Array.isArray(item) &&
          Object.keys(item).length === 1 &&
          Object.keys(item)[0]!.trim() !== "" &&
          typeof Object.values(item)[0] === "string",
      );
    return ok ? null : OPERATION_MSG.chatsShape;
  }
  if (key === "ModelRequestRateLimitGroup") {
    try {
      return isRateLimitGroups(JSON.parse(v)) ? null : OPERATION_MSG.rateLimitGroupShape;
    } catch {
      return INVALID_JSON_MESSAGE;
    }
  }
  const min = Object.hasOwn(INTEGER_MIN, key) ? INTEGER_MIN[key] : undefined;
  if (min !== undefined) {
    if (!/^\d+$/.test(v)) return key === "DataExportInterval" ? OPERATION_MSG.intervalMin : "请输入不小于 0 的整数";
    if (Number(v) < min) return key === "DataExportInterval" ? OPERATION_MSG.intervalMin : `不能小于 ${min}`;
    return null;
  }
  if (key === "QuotaPerUnit") return /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 ? null : "请输入大于 0 的数字";
  if (key === "ChannelDisableThreshold") return /^\d+(\.\d+)?$/.test(v) ? null : "请输入不小于 0 的数字";
  return null;
}

/** The default of the log cleanup time (spec §9): one month before `now`, as a datetime-local value. */
export function defaultCleanupTime(now = new Date()): string {
  const d = new Date(now);
  d.setMonth(d.getMonth() - 1);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as unix seconds, or null when empty or invalid. */
export function cleanupTimestamp(value: string): number | null {
  if (!value.trim()) return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : null;
}
