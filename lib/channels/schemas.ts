// zod schemas for channel input, shared by the /api/channel routes and the channel form.
// Fields are normalised while parsing (lists joined, base_url without trailing slash); the rules
// of spec §5 (Channel) are checked on the whole object so each error is the console's sentence.
import { z } from "zod";
import { INT_COLUMN_MAX } from "@/lib/db/num";
import { pageQuery } from "@/lib/api/envelope";
import { CHANNEL_TYPES, channelTypeInfo, isChannelType } from "@/lib/channels/catalog";
import { joinList, parseLimitMap, parseStringMap, splitKeyLines, trimTrailingSlashes } from "@/lib/channels/fields";
import { channelOtherProblem } from "@/lib/channels/other";
import { isMultiKeyMode, MULTI_KEY_MODES, splitChannelKeys } from "@/lib/channels/keys";

export const CHANNEL_MSG = {
  notFound: "渠道不存在",
  nameKeyRequired: "请填写渠道名称和渠道密钥！",
  modelsRequired: "请至少选择一个模型！",
  modelMappingInvalid: "模型映射必须是合法的 JSON 格式！",
  statusCodeMappingInvalid: "状态码复写必须是合法的 JSON 格式！",
  outputLimitsInvalid: "输出上限必须是 JSON 对象，每个模型的值为正整数！",
  unknownType: "未知的渠道类型",
  priorityMin: "优先级不能小于 -999",
  weightMin: "权重不能小于 0",
  noneSelected: "请先选择要删除的通道！",
  keyRequiredToMove: "修改渠道类型或 Base URL 时请重新填写渠道密钥！",
  /** A change of an `other` that decides the host or the account (lib/channels/other): root only, key re-entered. */
  keyRequiredToChangeOther: (label: string) => `修改${label}时请重新填写渠道密钥！`,
  otherRootOnly: (label: string) => `只有超级管理员可以修改渠道的${label}！`,
  keyFormat: (typeName: string, format: string) => `密钥格式应为 ${format}（${typeName}）`,
  keyLine: (line: number, message: string) => `第 ${line} 行：${message}`,
  vertexKeyNotJson: "Vertex AI 的密钥应为服务账号的 JSON 凭证（一个 JSON 对象），当前内容不是合法的 JSON 对象",
  vertexKeyField: (field: string) => `Vertex AI 的服务账号 JSON 凭证缺少 ${field} 字段`,
  vertexNoBatch: "Vertex AI 的密钥是多行的 JSON 凭证，不能批量创建，请一次创建一个渠道",
  keyItem: (n: number, message: string) => `第 ${n} 个密钥：${message}`,
  multiKeyModeInvalid: "多密钥模式只能是 random（随机）、polling（轮询）或留空（关闭）",
  multiKeyNoBatch: "批量创建是每行一个渠道，不能同时开启多密钥模式",
  internalAddress: (host: string, address: string) =>
    host === address
      ? `不能将渠道指向本机、内网或链路本地地址 ${address}！`
      : `不能将渠道指向本机、内网或链路本地地址：${host} 解析到 ${address}！`,
} as const;

/** null (which some forms send for empty fields) is treated as absent. */
const opt = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());

const text = opt(z.string().trim());
/** An integer an Int column holds (32-bit on PostgreSQL and MySQL). */
const int = (message = "必须是整数") => z.coerce.number({ error: message }).int(message).max(INT_COLUMN_MAX, "超出范围");
/** Comma list as text, or the form's array of names; stored as "a,b". */
const list = opt(z.union([z.string(), z.array(z.string())]).transform(joinList));

/** Every writable channel field, all optional; create and update add their own rules. */
const channelFields = z.object({
  type: opt(int(CHANNEL_MSG.unknownType).refine(isChannelType, CHANNEL_MSG.unknownType)),
  name: text,
  key: opt(z.string()),
  openai_organization: text,
  base_url: opt(z.string().transform(trimTrailingSlashes)),
  other: text,
  model_mapping: text,
  status_code_mapping: text,
  output_limits: text,
  models: list,
  group: list,
  auto_ban: opt(z.union([z.boolean().transform(Number), z.coerce.number().int()]).pipe(z.union([z.literal(0), z.literal(1)]))),
  test_model: text,
  priority: opt(int().min(-999, CHANNEL_MSG.priorityMin)),
  weight: opt(int().min(0, CHANNEL_MSG.weightMin)),
  max_input_tokens: opt(int().min(0)),
  tag: text,
  /** "" = one key; "random" or "polling" = one key per line (lib/channels/keys.ts). */
  multi_key_mode: opt(z.enum(MULTI_KEY_MODES, { error: CHANNEL_MSG.multiKeyModeInvalid })),
  /** Enabled or manually disabled; 3 (auto-disabled) is set only by the relay. */
  status: opt(
    z.coerce
      .number()
      .int()
      .pipe(z.union([z.literal(1), z.literal(2)], { error: "状态只能是 1（启用）或 2（禁用）" })),
  ),
});

type Fields = z.output<typeof channelFields>;

/** The fields of a service-account JSON key that the Vertex adapter signs with (lib/relay/providers/vertex/token.ts). */
const VERTEX_KEY_FIELDS = ["project_id", "client_email", "private_key"] as const;

const pipeParts = (key: string) => key.split("|").map((p) => p.trim());
const filled = (parts: string[]) => parts.every((p) => p !== "");

/** What each composite key must look like: the shapes the relay's adapters accept. */
const KEY_SHAPES: Partial<Record<number, (key: string) => boolean>> = {
  // One value without "|" is an access token, or the v2 API's key (lib/relay/providers/baidu).
  [CHANNEL_TYPES.Baidu]: (k) => !k.includes("|") || (pipeParts(k).length === 2 && filled(pipeParts(k))),
  [CHANNEL_TYPES.Zhipu]: (k) => /^[^.]+\.[^.]+$/.test(k),
  [CHANNEL_TYPES.ZhipuV4]: (k) => /^[^.]+\.[^.]+$/.test(k),
  [CHANNEL_TYPES.Xunfei]: (k) => pipeParts(k).length === 3 && filled(pipeParts(k)),
  // The adapter also takes SecretId|SecretKey (the AppId is not signed with).
  [CHANNEL_TYPES.Tencent]: (k) => [2, 3].includes(pipeParts(k).length) && filled(pipeParts(k)),
  [CHANNEL_TYPES.AWS]: (k) => pipeParts(k).length === 3 && filled(pipeParts(k)) && /^[a-z0-9-]+$/.test(pipeParts(k)[2]!),
};

function vertexKeyProblem(key: string): string | null {
  let v: unknown;
  try {
    v = JSON.parse(key);
  } catch {
    return CHANNEL_MSG.vertexKeyNotJson;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return CHANNEL_MSG.vertexKeyNotJson;
  const o = v as Record<string, unknown>;
  const missing = VERTEX_KEY_FIELDS.find((f) => typeof o[f] !== "string" || o[f] === "");
  return missing ? CHANNEL_MSG.vertexKeyField(missing) : null;
}

/** Why one (trimmed, non-empty) key cannot serve a channel of this type, or null when it can. */
export function channelKeyProblem(type: number, key: string): string | null {
  if (type === CHANNEL_TYPES.VertexAI) return vertexKeyProblem(key);
  const info = channelTypeInfo(type);
  const shape = KEY_SHAPES[type];
  return info?.keyFormat && shape && !shape(key) ? CHANNEL_MSG.keyFormat(info.name, info.keyFormat) : null;
}

/** The first problem among the keys of a create request (batch: one per line, named by its line). */
export function channelKeysProblem(type: number, keys: string[], batch: boolean): string | null {
  if (batch && type === CHANNEL_TYPES.VertexAI) return CHANNEL_MSG.vertexNoBatch;
  for (const [i, key] of keys.entries()) {
    const problem = channelKeyProblem(type, key);
    if (problem) return batch ? CHANNEL_MSG.keyLine(i + 1, problem) : problem;
  }
  return null;
}

/** The first problem of a key field: one key, or (multi-key mode) each of its keys, named by its place. */
export function channelKeyTextProblem(type: number, text: string, multiKeyMode: string | undefined): string | null {
  if (!isMultiKeyMode(multiKeyMode ?? "")) return channelKeyProblem(type, text.trim());
  for (const [i, key] of splitChannelKeys(type, text, multiKeyMode!).entries()) {
    const problem = channelKeyProblem(type, key);
    if (problem) return CHANNEL_MSG.keyItem(i + 1, problem);
  }
  return null;
}

function checkMappings(v: Fields, ctx: z.RefinementCtx) {
  if (v.model_mapping !== undefined && parseStringMap(v.model_mapping) === null) {
    ctx.addIssue({ code: "custom", message: CHANNEL_MSG.modelMappingInvalid, path: [] });
  }
  if (v.status_code_mapping !== undefined && parseStringMap(v.status_code_mapping) === null) {
    ctx.addIssue({ code: "custom", message: CHANNEL_MSG.statusCodeMappingInvalid, path: [] });
  }
  if (v.output_limits !== undefined && parseLimitMap(v.output_limits) === null) {
    ctx.addIssue({ code: "custom", message: CHANNEL_MSG.outputLimitsInvalid, path: [] });
  }
}

export const channelCreateSchema = channelFields
  .extend({
    /** batch: one channel per non-empty line of `key`. */
    mode: z.enum(["single", "batch"]).default("single"),
  })
  .superRefine((v, ctx) => {
    const type = v.type ?? CHANNEL_TYPES.OpenAI;
    const multiKey = isMultiKeyMode(v.multi_key_mode ?? "");
    const keys =
      v.mode === "batch"
        ? splitKeyLines(v.key ?? "")
        : multiKey
          ? splitChannelKeys(type, v.key ?? "", v.multi_key_mode!)
          : [(v.key ?? "").trim()].filter(Boolean);
    if (!v.name || keys.length === 0) ctx.addIssue({ code: "custom", message: CHANNEL_MSG.nameKeyRequired, path: [] });
    if (!v.models) ctx.addIssue({ code: "custom", message: CHANNEL_MSG.modelsRequired, path: [] });
    if (v.mode === "batch" && multiKey) ctx.addIssue({ code: "custom", message: CHANNEL_MSG.multiKeyNoBatch, path: [] });
    const keyProblem =
      keys.length === 0
        ? null
        : multiKey
          ? channelKeyTextProblem(type, v.key ?? "", v.multi_key_mode)
          : channelKeysProblem(type, keys, v.mode === "batch");
    if (keyProblem) ctx.addIssue({ code: "custom", message: keyProblem, path: [] });
    const otherProblem = channelOtherProblem(v.type ?? CHANNEL_TYPES.OpenAI, v.other ?? "");
    if (otherProblem) ctx.addIssue({ code: "custom", message: otherProblem, path: [] });
    checkMappings(v, ctx);
  });

export const channelUpdateSchema = channelFields.extend({ id: z.coerce.number().int().positive() }).superRefine((v, ctx) => {
  if (v.name !== undefined && !v.name) ctx.addIssue({ code: "custom", message: CHANNEL_MSG.nameKeyRequired, path: [] });
  if (v.models !== undefined && !v.models) ctx.addIssue({ code: "custom", message: CHANNEL_MSG.modelsRequired, path: [] });
  // A key with the type it is for; a key alone is checked against the stored type (lib/channels/manage).
  // A key with its type (and mode: one key when absent); a key alone is checked against the stored type and mode (lib/channels/manage).
  const keyProblem = v.type !== undefined && v.key?.trim() ? channelKeyTextProblem(v.type, v.key, v.multi_key_mode) : null;
  if (keyProblem) ctx.addIssue({ code: "custom", message: keyProblem, path: [] });
  // Likewise `other`; manage.ts checks the stored channel's (an `other` alone, or a type alone).
  const otherProblem = v.type !== undefined && v.other !== undefined ? channelOtherProblem(v.type, v.other) : null;
  if (otherProblem) ctx.addIssue({ code: "custom", message: otherProblem, path: [] });
  checkMappings(v, ctx);
});

export const channelListQuery = z.object({
  ...pageQuery,
  id_sort: z.preprocess((v) => v === "true" || v === "1", z.boolean()),
});

export const channelSearchQuery = channelListQuery.extend({
  keyword: z.string().trim().optional().default(""),
  group: z.string().trim().optional().default(""),
  model: z.string().trim().optional().default(""),
});

export const channelIdsSchema = z.object({
  ids: z.array(z.coerce.number().int().positive(), { error: CHANNEL_MSG.noneSelected }).min(1, CHANNEL_MSG.noneSelected),
});

/** POST /api/channel/multi_key/manage (new-api's body; `keys` for add_keys, one per line). */
export const multiKeyManageSchema = z.object({
  channel_id: z.coerce.number({ error: CHANNEL_MSG.notFound }).int(CHANNEL_MSG.notFound),
  action: z.string(),
  key_index: opt(z.coerce.number().int()),
  page: opt(z.coerce.number().int()),
  page_size: opt(z.coerce.number().int().max(500)),
  status: opt(z.coerce.number().int()),
  keys: opt(z.string()),
});

export type MultiKeyManageInput = z.output<typeof multiKeyManageSchema>;
export type ChannelCreateInput = z.output<typeof channelCreateSchema>;
export type ChannelUpdateInput = z.output<typeof channelUpdateSchema>;
export type ChannelListQuery = z.output<typeof channelListQuery>;
export type ChannelSearchQuery = z.output<typeof channelSearchQuery>;
