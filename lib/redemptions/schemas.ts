// zod schemas and texts for redemption codes, shared by the /api/redemption routes, the top-up
// call and the console's redemption form (client-safe: no server imports).
import { z } from "zod";
import { pageQuery } from "@/lib/api/envelope";
import { INT_COLUMN_MAX } from "@/lib/db/num";

/** Spec §4: 1 unused, 2 disabled, 3 used. */
export const REDEMPTION_STATUS = { unused: 1, disabled: 2, used: 3 } as const;

export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_COUNT_MAX = 100;
/** Spec §9: what the form starts with, and what the API assumes when a field is left out. */
export const REDEMPTION_DEFAULTS = { quota: 100000, count: 1 } as const;

export const REDEMPTION_MSG = {
  nameRequired: "请填写兑换码名称",
  nameTooLong: `兑换码名称长度必须在1-${REDEMPTION_NAME_MAX}之间`,
  quotaInvalid: "兑换额度必须是正整数",
  countNotInteger: "兑换码个数必须是整数",
  countTooSmall: "兑换码个数必须大于0",
  countTooLarge: `一次兑换码批量生成的个数不能大于 ${REDEMPTION_COUNT_MAX}`,
  idInvalid: "兑换码 ID 无效",
  statusInvalid: "状态只能是 1（启用）或 2（禁用）",
  usedStatusLocked: "兑换码已被使用，状态不可修改",
  editOnlyUnused: "只能编辑未使用的兑换码",
  notFound: "兑换码不存在",
  /** Spec §5 (Redeem and top-up): an empty code. */
  keyRequired: "请输入兑换码！",
  keyInvalid: "无效的兑换码",
  keyUsed: "该兑换码已被使用",
  keyDisabled: "该兑换码已被禁用",
  tooManyFailures: "兑换失败次数过多，请稍后再试",
} as const;

const name = z
  .string({ error: REDEMPTION_MSG.nameRequired })
  .trim()
  .min(1, REDEMPTION_MSG.nameRequired)
  .max(REDEMPTION_NAME_MAX, REDEMPTION_MSG.nameTooLong);

const quota = z.coerce
  .number({ error: REDEMPTION_MSG.quotaInvalid })
  .int(REDEMPTION_MSG.quotaInvalid)
  .min(1, REDEMPTION_MSG.quotaInvalid)
  .max(Number.MAX_SAFE_INTEGER, REDEMPTION_MSG.quotaInvalid);

const count = z.coerce
  .number({ error: REDEMPTION_MSG.countNotInteger })
  .int(REDEMPTION_MSG.countNotInteger)
  .min(1, REDEMPTION_MSG.countTooSmall)
  .max(REDEMPTION_COUNT_MAX, REDEMPTION_MSG.countTooLarge);

/** POST /api/redemption/: name required; quota and count default to spec §9's values. */
export const redemptionCreateSchema = z.object({
  name,
  quota: quota.default(REDEMPTION_DEFAULTS.quota),
  count: count.default(REDEMPTION_DEFAULTS.count),
});

/**
 * PUT /api/redemption/: id plus the fields to change (name, quota). With ?status_only=true only
 * {id, status} counts. Other fields of a whole row sent back (key, used_user_id, …) are ignored.
 */
export const redemptionUpdateSchema = z.object({
  id: z.coerce
    .number({ error: REDEMPTION_MSG.idInvalid })
    .int(REDEMPTION_MSG.idInvalid)
    .positive(REDEMPTION_MSG.idInvalid)
    .max(INT_COLUMN_MAX, REDEMPTION_MSG.idInvalid),
  name: name.optional(),
  quota: quota.optional(),
  status: z.coerce
    .number({ error: REDEMPTION_MSG.statusInvalid })
    .int(REDEMPTION_MSG.statusInvalid)
    .pipe(z.union([z.literal(REDEMPTION_STATUS.unused), z.literal(REDEMPTION_STATUS.disabled)], { error: REDEMPTION_MSG.statusInvalid }))
    .optional(),
});

export const redemptionUpdateQuery = z.object({ status_only: z.preprocess((v) => v === "true" || v === "1", z.boolean()) });

/** p from 0, page_size 1–100 (10 by default). */
export const redemptionListQuery = z.object(pageQuery);

/** keyword: an id, a name fragment, or a whole code; trimmed. */
export const redemptionSearchQuery = z.object({ ...pageQuery, keyword: z.string().trim().optional().default("") });

/** POST /api/user/topup. Anything but a string reads as no code, so the answer is the spec's text. */
export const topupSchema = z.object({ key: z.string().catch("").default("") });

export type RedemptionCreateInput = z.output<typeof redemptionCreateSchema>;
export type RedemptionUpdateInput = z.output<typeof redemptionUpdateSchema>;
export type RedemptionListQuery = z.output<typeof redemptionListQuery>;
export type RedemptionSearchQuery = z.output<typeof redemptionSearchQuery>;
