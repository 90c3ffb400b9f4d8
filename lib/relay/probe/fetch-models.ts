// The channel editor's "fetch models from the upstream": `GET {base}/v1/models` with the channel's
// key, for vendors that serve OpenAI's model list (spec §5: only the OpenAI format, and a key is
// needed). Either for a stored channel (its stored key, its recorded address) or for the editor's
// unsaved form (the key typed in; the address checked as a save by the same caller would be).
import { z } from "zod";
import { ApiError, badRequest } from "@/lib/errors";
import { isRoot } from "@/lib/auth/roles";
import { checkChannelAddress } from "@/lib/channels/address";
import { CHANNEL_TYPES, isChannelType } from "@/lib/channels/catalog";
import { channelBaseUrl, trimTrailingSlashes } from "@/lib/channels/fields";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { MODELS_PATH } from "@/lib/relay/endpoints";
import { bearer, getUpstreamJson, loadChannelTarget, UpstreamCallError, type UpstreamTarget } from "@/lib/relay/probe/upstream";
import { hideSecrets } from "@/lib/net/mask";

export const FETCH_MODELS_MSG = {
  failed: "获取模型列表失败",
  keyRequired: "请先填写渠道密钥，获取模型列表需要密钥",
  openAIOnly: "仅支持 OpenAI 接口格式的渠道获取模型列表",
  badAnswer: "上游返回的不是 OpenAI 格式的模型列表",
} as const;

/** Types whose vendor documents OpenAI's `GET /v1/models` (same path, Bearer key, `{data:[{id}]}`). */
const MODEL_LIST_TYPES: ReadonlySet<number> = new Set([
  CHANNEL_TYPES.OpenAI,
  CHANNEL_TYPES.Ollama,
  CHANNEL_TYPES.Moonshot,
  CHANNEL_TYPES.SiliconFlow,
  CHANNEL_TYPES.Mistral,
  CHANNEL_TYPES.DeepSeek,
  CHANNEL_TYPES.XAI,
]);

export const supportsModelList = (type: number) => MODEL_LIST_TYPES.has(type);

/** The editor's unsaved form. */
export const fetchModelsSchema = z.object({
  type: z.coerce.number({ error: CHANNEL_MSG.unknownType }).int(CHANNEL_MSG.unknownType).refine(isChannelType, CHANNEL_MSG.unknownType),
  base_url: z.preprocess((v) => v ?? "", z.string().transform(trimTrailingSlashes)),
  key: z.preprocess((v) => v ?? "", z.string()),
});
export type FetchModelsInput = z.output<typeof fetchModelsSchema>;

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() }).loose()) }).loose();

async function listUpstreamModels(target: UpstreamTarget): Promise<string[]> {
  if (!supportsModelList(target.type)) throw badRequest(FETCH_MODELS_MSG.openAIOnly);
  if (!target.key.trim()) throw badRequest(FETCH_MODELS_MSG.keyRequired);
  const base = channelBaseUrl(target.type, target.base_url);
  let answer: unknown;
  try {
    answer = await getUpstreamJson(target, `${base}${MODELS_PATH}`, bearer(target.key));
  } catch (error) {
    if (error instanceof UpstreamCallError)
      throw new ApiError(`${FETCH_MODELS_MSG.failed}：${hideSecrets(error.message, target.key)}`, 502);
    throw error;
  }
  const parsed = modelListSchema.safeParse(answer);
  if (!parsed.success) throw new ApiError(`${FETCH_MODELS_MSG.failed}：${FETCH_MODELS_MSG.badAnswer}`, 502);
  return [...new Set(parsed.data.data.map((m) => m.id.trim()).filter(Boolean))];
}

/** Model ids the stored channel's upstream lists (its own key and recorded address). */
export async function fetchChannelModels(id: number): Promise<string[]> {
  return listUpstreamModels(await loadChannelTarget(id));
}

/**
 * Model ids the upstream of an unsaved form lists. The address is checked as if `actor` saved a
 * channel there: below root, no internal address while ChannelPrivateAddressAllowed is off.
 */
export async function fetchFormModels(input: FetchModelsInput, actor: { role: number }): Promise<string[]> {
  if (!supportsModelList(input.type)) throw badRequest(FETCH_MODELS_MSG.openAIOnly);
  if (!input.key.trim()) throw badRequest(FETCH_MODELS_MSG.keyRequired);
  await checkChannelAddress(actor, input, true);
  return listUpstreamModels({ ...input, address_by_root: isRoot(actor) });
}
