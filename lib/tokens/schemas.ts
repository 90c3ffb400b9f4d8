// zod schemas for API tokens, shared by the /api/token routes and the token drawer, so browser-safe.
// Only the allow-list's address check needs the server (node:net): lib/tokens/body-schemas.ts adds
// it for the routes.
import { z } from "zod";
import { queryNumber } from "@/lib/api/envelope";
import { INT_COLUMN_MAX } from "@/lib/db/num";
import { zeroIsOne } from "@/lib/db/paging";
import { BATCH_MSG, TOKEN_BATCH_MAX } from "@/lib/tokens/batch";
import { joinList } from "@/lib/channels/fields";
import { BUDGET_PERIODS } from "@/lib/limits/types";

export const TOKEN_NAME_MAX = 30;

export const TOKEN_MSG = {
  nameRequired: "请填写令牌名称",
  nameTooLong: `令牌名称过长（最多 ${TOKEN_NAME_MAX} 个字符）`,
  quotaInvalid: "额度必须是非负整数",
  expiryInvalid: "过期时间必须是未来的时间，或 -1（永不过期）",
  expiryTooLate: "过期时间超出范围，最晚为 2038-01-19，长期有效请选择永不过期",
  statusInvalid: "状态只能是 1（启用）或 2（禁用）",
  expiredCannotEnable: "令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期",
  exhaustedCannotEnable: "令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度",
  notFound: "令牌不存在",
  countInvalid: BATCH_MSG.countInvalid,
  rpmInvalid: `每分钟请求数必须是 0 到 ${INT_COLUMN_MAX} 之间的整数`,
  tpmInvalid: `每分钟 token 数必须是 0 到 ${INT_COLUMN_MAX} 之间的整数`,
  concurrencyInvalid: `并发请求数必须是 0 到 ${INT_COLUMN_MAX} 之间的整数`,
  budgetInvalid: "周期预算必须是非负整数",
  periodInvalid: "预算周期只能是 day（每天）、week（每周）、month（每月）或空（不重置）",
  budgetNeedsPeriod: "设置了周期预算，请选择预算周期（每天、每周或每月）",
  periodNeedsBudget: "选择了预算周期，请填写大于 0 的周期预算",
} as const;

/** A key's own limit: a whole number of requests or tokens, 0 = none, as an Int column holds it. */
const limitField = (message: string) =>
  z.coerce.number({ error: message }).int(message).min(0, message).max(INT_COLUMN_MAX, message).optional();

/** "" = the budget never starts afresh (and then there is no budget). */
export const BUDGET_PERIOD_VALUES = ["", ...BUDGET_PERIODS] as const;

/**
 * A budget and its period go together: a budget > 0 needs a period, a period needs a budget > 0.
 * Checked on the values the token ends with (an edit may send only one of the two), so the lib and
 * the drawer call it rather than the schema.
 */
export function budgetRefusal(
  budgetQuota: number | bigint,
  budgetPeriod: string,
): { field: "budget_quota" | "budget_period"; message: string } | null {
  const hasBudget = BigInt(budgetQuota) > 0n;
  if (hasBudget && !budgetPeriod) return { field: "budget_period", message: TOKEN_MSG.budgetNeedsPeriod };
  if (!hasBudget && budgetPeriod) return { field: "budget_quota", message: TOKEN_MSG.periodNeedsBudget };
  return null;
}

/**
 * One address or CIDR a line (commas and spaces also separate); stored one a line. `invalidOf`
 * names the entries that are no address; the browser has no check, the server passes one.
 */
export function allowIpsField(invalidOf: (text: string) => string[] = () => []) {
  return z.union([z.string(), z.array(z.string())]).transform((v, ctx) => {
    const text = Array.isArray(v) ? v.join("\n") : v;
    const invalid = invalidOf(text);
    if (invalid.length) {
      ctx.addIssue({ code: "custom", message: `IP 白名单中有无效的地址：${invalid.join(", ")}`, path: [] });
      return z.NEVER;
    }
    return text
      .split(/[\s,]+/)
      .filter(Boolean)
      .join("\n");
  });
}

const tokenFields = {
  name: z.string().trim().min(1, TOKEN_MSG.nameRequired).max(TOKEN_NAME_MAX, TOKEN_MSG.nameTooLong).optional(),
  remain_quota: z.coerce
    .number({ error: TOKEN_MSG.quotaInvalid })
    .int(TOKEN_MSG.quotaInvalid)
    .min(0, TOKEN_MSG.quotaInvalid)
    .max(Number.MAX_SAFE_INTEGER, TOKEN_MSG.quotaInvalid)
    .optional(),
  /** -1 = never; otherwise unix seconds, checked against the clock by the lib (not here). */
  expired_time: z.coerce
    .number({ error: TOKEN_MSG.expiryInvalid })
    .int(TOKEN_MSG.expiryInvalid)
    .min(-1, TOKEN_MSG.expiryInvalid)
    .max(INT_COLUMN_MAX, TOKEN_MSG.expiryTooLate)
    .optional(),
  unlimited_quota: z.boolean().optional(),
  model_limits_enabled: z.boolean().optional(),
  /** Comma list in the API, a list in the form. */
  model_limits: z
    .union([z.string(), z.array(z.string())])
    .transform(joinList)
    .optional(),
  allow_ips: allowIpsField().optional(),
  group: z.string().trim().optional(),
  rpm_limit: limitField(TOKEN_MSG.rpmInvalid),
  tpm_limit: limitField(TOKEN_MSG.tpmInvalid),
  concurrency_limit: limitField(TOKEN_MSG.concurrencyInvalid),
  /** Quota units, like remain_quota. */
  budget_quota: z.coerce
    .number({ error: TOKEN_MSG.budgetInvalid })
    .int(TOKEN_MSG.budgetInvalid)
    .min(0, TOKEN_MSG.budgetInvalid)
    .max(Number.MAX_SAFE_INTEGER, TOKEN_MSG.budgetInvalid)
    .optional(),
  budget_period: z.enum(BUDGET_PERIOD_VALUES, { error: TOKEN_MSG.periodInvalid }).optional(),
};

/** `count` asks for a batch: that many tokens, all or none, answered as a list (absent: one, answered alone). */
export const tokenCreateSchema = z.object({
  ...tokenFields,
  name: z.string({ error: TOKEN_MSG.nameRequired }).trim().min(1, TOKEN_MSG.nameRequired).max(TOKEN_NAME_MAX, TOKEN_MSG.nameTooLong),
  count: z.coerce
    .number({ error: TOKEN_MSG.countInvalid })
    .int(TOKEN_MSG.countInvalid)
    .min(1, TOKEN_MSG.countInvalid)
    .max(TOKEN_BATCH_MAX, TOKEN_MSG.countInvalid)
    .optional(),
});

/** Full edit (every field optional) or, with ?status_only=true, only {id, status}. */
export const tokenUpdateSchema = z.object({
  ...tokenFields,
  id: z.coerce.number().int().positive(),
  status: z.coerce
    .number()
    .int()
    .pipe(z.union([z.literal(1), z.literal(2)], { error: TOKEN_MSG.statusInvalid }))
    .optional(),
});

const pageNumber = queryNumber;

/** p from 0; `size` (spec) or `page_size`, 1–100; an explicit 0 is the smallest page. */
export const tokenListQuery = z.object({ p: pageNumber, size: pageNumber, page_size: pageNumber }).transform(({ p, size, page_size }) => {
  return { p, page_size: zeroIsOne(page_size ?? size) };
});

export const tokenSearchQuery = z
  .object({
    p: pageNumber,
    size: pageNumber,
    page_size: pageNumber,
    keyword: z.string().trim().optional().default(""),
    token: z.string().trim().optional().default(""),
  })
  .transform(({ p, size, page_size, keyword, token }) => {
    return { p, page_size: zeroIsOne(page_size ?? size), keyword, token };
  });

export const tokenUpdateQuery = z.object({ status_only: z.preprocess((v) => v === "true" || v === "1", z.boolean()) });

export type TokenCreateInput = z.output<typeof tokenCreateSchema>;
export type TokenUpdateInput = z.output<typeof tokenUpdateSchema>;
export type TokenListQuery = z.output<typeof tokenListQuery>;
export type TokenSearchQuery = z.output<typeof tokenSearchQuery>;
