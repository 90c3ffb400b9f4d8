// The channel pages' pure rules (spec §4 Channel status and form behaviour, §5 Channel, §8): status
// and response-time tags, the editor's type-specific labels and defaults, custom models, and the
// bodies sent to POST/PUT /api/channel/. Validation texts come from lib/channels/schemas (the
// server's own schemas), so each text exists once.
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES, CHANNEL_TYPES, channelTypeInfo } from "@/lib/channels/catalog";
import { CHANNEL_STATUS, joinList, splitList, trimTrailingSlashes } from "@/lib/channels/fields";
import { CHANNEL_MSG, channelCreateSchema, channelKeyTextProblem, channelUpdateSchema } from "@/lib/channels/schemas";
import { changesAddressOther, channelOtherProblem } from "@/lib/channels/other";
import type { ChannelView } from "@/lib/channels/view";
import { NOTHING_CHANGED } from "@/lib/options/messages";

export const CHANNEL_FORM_MSG = {
  unchanged: NOTHING_CHANGED,
  doubleSubmit: "提交失败，请勿重复提交！",
  duplicateModels: "部分模型已存在",
  created: (n: number) => (n > 1 ? `已成功创建 ${n} 个渠道！` : "渠道创建成功！"),
  updated: "渠道更新成功！",
  tested: (name: string, seconds: number) => `通道 ${name} 测试成功，耗时 ${seconds.toFixed(2)} 秒。`,
  testFailed: (name: string, reason: string) => `通道「${name}」测试失败：${reason || "未知错误"}`,
  balanceUpdated: (name: string) => `通道 ${name} 余额更新成功！`,
  deletedDisabled: (n: number) => `已删除所有禁用渠道，共计 ${n} 个`,
  deletedSelected: (n: number) => `已删除 ${n} 个通道！`,
  fixed: (n: number) => `已修复 ${n} 个通道！`,
  deleted: "删除成功！",
  done: "操作成功完成！",
  modelsFetched: (n: number) => `已获取 ${n} 个模型`,
} as const;

/** Type select options, in catalog order. */
export const CHANNEL_TYPE_OPTIONS = CHANNEL_TYPE_CODES.map((code) => ({ value: String(code), label: CHANNEL_CATALOG[code].name }));

export const channelTypeName = (type: number) => channelTypeInfo(type)?.name ?? `未知类型（${type}）`;

/** spec §4 Channel status: 1 enabled, 2 disabled, 3 auto-disabled, anything else unknown. */
export function channelStatusTag(status: number): { label: string; color: string } {
  switch (status) {
    case 1:
      return { label: "已启用", color: "green" };
    case 2:
      return { label: "已禁用", color: "red" };
    case 3:
      return { label: "自动禁用", color: "yellow" };
    default:
      return { label: "未知状态", color: "gray" };
  }
}

/**
 * spec §4: 0 untested; up to 1 s green, 3 s lime, 5 s yellow, else red. `ms` is response_time.
 * A channel that is not enabled serves nothing, whatever its last test took: its time is grey,
 * so a fast 401 that auto-disabled it never reads as a healthy green.
 */
export function responseTimeTag(ms: number, status: number): { label: string; color: string } {
  if (!ms) return { label: "未测试", color: "gray" };
  const seconds = ms / 1000;
  if (status !== CHANNEL_STATUS.enabled) return { label: `${seconds.toFixed(2)} 秒`, color: "gray" };
  const color = seconds <= 1 ? "green" : seconds <= 3 ? "lime" : seconds <= 5 ? "yellow" : "red";
  return { label: `${seconds.toFixed(2)} 秒`, color };
}

/** What the editor shows for a type: the `other` field, key and base URL hints. */
export type ChannelTypeFields = {
  other: { label: string; default: string; placeholder: string } | null;
  keyPlaceholder: string;
  /** What the key is made of, for types whose key is more than one API key; null otherwise. */
  keyHint: string | null;
  /** The key is a multi-line JSON document (Vertex AI): a monospace field, no batch mode. */
  keyIsJson: boolean;
  /** Why batch mode (one key per line) cannot be used for this type; null when it can. */
  batchRefusal: string | null;
  baseUrlLabel: string;
  baseUrlPlaceholder: string;
  /** The type has no default address: a base URL must be given. */
  baseUrlRequired: boolean;
};

const OTHER_PLACEHOLDERS: Partial<Record<number, string>> = {
  [CHANNEL_TYPES.Azure]: "请输入默认 API 版本，例如：2023-06-01-preview",
  [CHANNEL_TYPES.Xunfei]: "请输入星火大模型版本，例如：v3.5、v4.0；模型名自带版本时（如 SparkDesk-v3.5）以模型为准",
  [CHANNEL_TYPES.VertexAI]: '请输入部署地区，例如：us-central1；或 JSON：{"default": "us-central1", "模型": "地区"}',
  [CHANNEL_TYPES.AIProxyLibrary]: "请输入 AI Proxy 知识库 ID",
  [CHANNEL_TYPES.Cloudflare]: "请输入 Cloudflare Account ID",
  [CHANNEL_TYPES.Ali]: "请输入插件名称，例如：WebSearch",
  [CHANNEL_TYPES.Gemini]: "请输入 API 版本，例如：v1beta、v1",
};

/** Where each part of a composite key comes from (the parts are the catalogue's keyFormat). */
const KEY_HINTS: Partial<Record<number, string>> = {
  [CHANNEL_TYPES.Baidu]:
    "千帆应用的 API Key 和 Secret Key，用竖线 | 连接；也可只填一个 access token（Base URL 为 qianfan.baidubce.com 时填千帆 v2 的 API Key）",
  [CHANNEL_TYPES.Zhipu]: "智谱开放平台的 API Key，形如 id.secret（点号前为 id，点号后为 secret）",
  [CHANNEL_TYPES.ZhipuV4]: "智谱开放平台的 API Key，形如 id.secret（点号前为 id，点号后为 secret）",
  [CHANNEL_TYPES.Xunfei]: "讯飞开放平台应用的 APPID、APISecret、APIKey，按此顺序用竖线 | 连接",
  [CHANNEL_TYPES.Tencent]: "腾讯云的 AppId、SecretId、SecretKey，按此顺序用竖线 | 连接",
  [CHANNEL_TYPES.AWS]: "AWS 的 Access Key ID、Secret Access Key 和 Bedrock 所在地区（如 us-east-1），用竖线 | 连接",
  [CHANNEL_TYPES.VertexAI]: "Google Cloud 服务账号的 JSON 凭证，整份粘贴；须含 project_id、client_email 和 private_key",
};

const VERTEX_KEY_PLACEHOLDER =
  '{\n  "type": "service_account",\n  "project_id": "my-project",\n  "client_email": "relay@my-project.iam.gserviceaccount.com",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n…",\n  …\n}';

/** Types whose default address is made from the key or `other` (the adapters build it). */
const DERIVED_BASE_URLS: Partial<Record<number, string>> = {
  [CHANNEL_TYPES.AWS]: "https://bedrock-runtime.{Region}.amazonaws.com（Region 取自密钥）",
  [CHANNEL_TYPES.VertexAI]: "https://{部署地区}-aiplatform.googleapis.com",
};

export function channelTypeFields(type: number): ChannelTypeFields {
  const info = channelTypeInfo(type);
  const other = info?.other
    ? { label: info.other.label, default: info.other.default, placeholder: OTHER_PLACEHOLDERS[type] ?? `请输入${info.other.label}` }
    : null;
  const keyIsJson = type === CHANNEL_TYPES.VertexAI;
  const key = {
    keyPlaceholder: keyIsJson
      ? VERTEX_KEY_PLACEHOLDER
      : info?.keyFormat
        ? `按照如下格式输入：${info.keyFormat}`
        : "请输入渠道对应的鉴权密钥",
    keyHint: info?.keyFormat ? (KEY_HINTS[type] ?? `格式：${info.keyFormat}`) : null,
    keyIsJson,
    batchRefusal: keyIsJson ? CHANNEL_MSG.vertexNoBatch : null,
  };
  if (type === CHANNEL_TYPES.Azure) {
    return {
      other,
      ...key,
      baseUrlLabel: "AZURE_OPENAI_ENDPOINT",
      baseUrlPlaceholder: "请输入 AZURE_OPENAI_ENDPOINT，例如：https://docs-test-001.openai.azure.com",
      baseUrlRequired: true,
    };
  }
  const base = info?.baseUrl || DERIVED_BASE_URLS[type] || "";
  return {
    other,
    ...key,
    baseUrlLabel: "Base URL",
    baseUrlPlaceholder: base ? `留空使用默认地址：${base}` : "请输入上游地址，例如：https://example.com",
    baseUrlRequired: !base,
  };
}

export type ChannelFormValues = {
  type: number;
  name: string;
  base_url: string;
  key: string;
  other: string;
  openai_organization: string;
  models: string[];
  group: string[];
  model_mapping: string;
  status_code_mapping: string;
  output_limits: string;
  auto_ban: boolean;
  test_model: string;
  priority: number | string;
  weight: number | string;
  /** Create only: one channel per key line. */
  batch: boolean;
  /** "" = one key; "random" or "polling" = one channel, one key per line (lib/channels/keys.ts). */
  multi_key_mode: string;
};

export function emptyChannelForm(type: number = CHANNEL_TYPES.OpenAI): ChannelFormValues {
  return {
    type,
    name: "",
    base_url: "",
    key: "",
    other: channelTypeFields(type).other?.default ?? "",
    openai_organization: "",
    models: [...(channelTypeInfo(type)?.models ?? [])],
    group: ["default"],
    model_mapping: "",
    status_code_mapping: "",
    output_limits: "",
    auto_ban: true,
    test_model: "",
    priority: 0,
    weight: 0,
    batch: false,
    multi_key_mode: "",
  };
}

/** The form of a stored channel; the key is never known to the form (blank = unchanged). */
export function channelFormOf(ch: ChannelView): ChannelFormValues {
  return {
    type: ch.type,
    name: ch.name,
    base_url: ch.base_url ?? "",
    key: "",
    other: ch.other ?? "",
    openai_organization: ch.openai_organization ?? "",
    models: splitList(ch.models),
    group: splitList(ch.group),
    model_mapping: ch.model_mapping ?? "",
    status_code_mapping: ch.status_code_mapping ?? "",
    output_limits: ch.output_limits ?? "",
    auto_ban: ch.auto_ban !== 0,
    test_model: ch.test_model ?? "",
    priority: ch.priority ?? 0,
    weight: ch.weight ?? 0,
    batch: false,
    multi_key_mode: ch.multi_key_mode ?? "",
  };
}

/**
 * A type change: empty models take the new type's defaults (spec §4), and so do models still the
 * old type's defaults; an `other` that is empty or still the old type's default takes the new
 * type's default.
 */
export function withType(values: ChannelFormValues, type: number): ChannelFormValues {
  const oldDefault = channelTypeFields(values.type).other?.default ?? "";
  const other = values.other.trim() === "" || values.other === oldDefault ? (channelTypeFields(type).other?.default ?? "") : values.other;
  // Models untouched since the old type filled them are that type's, not the new one's.
  const oldModels = channelTypeInfo(values.type)?.models ?? [];
  const untouched = values.models.length === oldModels.length && values.models.every((m, i) => m === oldModels[i]);
  const models = values.models.length === 0 || untouched ? [...(channelTypeInfo(type)?.models ?? [])] : values.models;
  // A type whose key cannot be split by lines turns batch mode off.
  const batch = values.batch && channelTypeFields(type).batchRefusal === null;
  return { ...values, type, other, models, batch };
}

/** Custom models typed as "a, b": the new ones are added; `duplicate` when any was already chosen. */
export function addCustomModels(current: string[], input: string): { models: string[]; duplicate: boolean } {
  const have = new Set(current);
  const wanted = splitList(input);
  const fresh = wanted.filter((m) => !have.has(m));
  return { models: [...current, ...fresh], duplicate: fresh.length < wanted.length };
}

/** Models from the upstream merged into the selection (existing first, no duplicates). */
export const mergeModels = (current: string[], fetched: string[]) => splitList([...current, ...fetched]);

const toInt = (v: number | string) => (typeof v === "number" ? v : v.trim() === "" ? 0 : Number(v));

function fieldsOf(v: ChannelFormValues) {
  return {
    type: v.type,
    name: v.name.trim(),
    base_url: trimTrailingSlashes(v.base_url),
    other: v.other.trim(),
    openai_organization: v.openai_organization.trim(),
    models: joinList(v.models),
    group: joinList(v.group),
    model_mapping: v.model_mapping.trim(),
    status_code_mapping: v.status_code_mapping.trim(),
    output_limits: v.output_limits.trim(),
    auto_ban: v.auto_ban ? 1 : 0,
    test_model: v.test_model.trim(),
    priority: toInt(v.priority),
    weight: toInt(v.weight),
    multi_key_mode: v.multi_key_mode,
  };
}

/** A refusal names the editor field it is about when there is one, so the editor can reveal it. */
export type ChannelBody = { ok: true; body: Record<string, unknown> } | { ok: false; message: string; field?: keyof ChannelFormValues };

type Issue = { path: PropertyKey[]; message: string };

/**
 * The field a schema issue is about. The schema reports its whole-object rules without a path (so
 * the API's message has no prefix); their texts say which field. What else it reports without a
 * path is about the key (its format, per type).
 */
function fieldOfIssue(issue: Issue, v: ChannelFormValues): keyof ChannelFormValues | undefined {
  const named = issue.path[0];
  if (named === "mode") return "batch";
  if (typeof named === "string") return named in v ? (named as keyof ChannelFormValues) : undefined;
  switch (issue.message) {
    case CHANNEL_MSG.nameKeyRequired:
      return v.name.trim() ? "key" : "name";
    case CHANNEL_MSG.modelsRequired:
      return "models";
    case CHANNEL_MSG.modelMappingInvalid:
      return "model_mapping";
    case CHANNEL_MSG.statusCodeMappingInvalid:
      return "status_code_mapping";
    case CHANNEL_MSG.outputLimitsInvalid:
      return "output_limits";
    case CHANNEL_MSG.vertexNoBatch:
    case CHANNEL_MSG.multiKeyNoBatch:
      return "batch";
    default:
      return issue.message === channelOtherProblem(v.type, fieldsOf(v).other) ? "other" : "key";
  }
}

/** The server's schema decides; its first message is the one the console shows. */
function refusal(error: { issues: Issue[] }, v: ChannelFormValues): ChannelBody {
  const issue = error.issues[0];
  if (!issue) return { ok: false, message: "输入不合法" };
  const field = fieldOfIssue(issue, v);
  return field ? { ok: false, message: issue.message, field } : { ok: false, message: issue.message };
}

/** POST /api/channel/ body, checked with the server's create schema. */
export function channelCreateBody(v: ChannelFormValues): ChannelBody {
  const body = { ...fieldsOf(v), key: v.key, mode: v.batch ? "batch" : "single" };
  const parsed = channelCreateSchema.safeParse(body);
  return parsed.success ? { ok: true, body } : refusal(parsed.error, v);
}

/**
 * PUT /api/channel/ body with only what changed (a blank key is unchanged), checked with the
 * server's update schema; 'nothing changed' when nothing did.
 */
export function channelUpdateBody(id: number, v: ChannelFormValues, original: ChannelFormValues): ChannelBody {
  const now = fieldsOf(v);
  const before = fieldsOf(original);
  const body: Record<string, unknown> = { id };
  for (const name of Object.keys(now) as Array<keyof typeof now>) if (now[name] !== before[name]) body[name] = now[name];
  // A key goes with its mode, so the server reads it as one key or one per line as the form does.
  if (v.key.trim()) {
    body.key = v.key.trim();
    if (now.multi_key_mode) body.multi_key_mode = now.multi_key_mode;
  }
  if (Object.keys(body).length === 1) return { ok: false, message: CHANNEL_FORM_MSG.unchanged };
  // The server checks a key alone against the stored type and mode; the form knows both.
  const keyProblem = v.key.trim() ? channelKeyTextProblem(v.type, v.key, v.multi_key_mode) : null;
  if (keyProblem) return { ok: false, message: keyProblem, field: "key" };
  // Likewise `other`, and a new region or account needs the key (and root: the server says so).
  const otherProblem = "other" in body || "type" in body ? channelOtherProblem(v.type, now.other) : null;
  if (otherProblem) return { ok: false, message: otherProblem, field: "other" };
  if (!v.key.trim() && changesAddressOther(original, { type: v.type, other: now.other })) {
    return { ok: false, message: CHANNEL_MSG.keyRequiredToChangeOther(channelTypeFields(v.type).other?.label ?? "other"), field: "key" };
  }
  // A name or models cleared to empty are sent so the server's rule answers.
  const parsed = channelUpdateSchema.safeParse(body);
  return parsed.success ? { ok: true, body } : refusal(parsed.error, v);
}
