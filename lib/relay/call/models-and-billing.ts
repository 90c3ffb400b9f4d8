// Read-only relay endpoints: the model list in OpenAI's shape, filtered by what the key may use,
// and the OpenAI-style billing dashboard some clients show (subscription and usage).
import { getOptions, loadedOptions } from "@/lib/options";
import { pricedModels } from "@/lib/relay/call/priced-models";
import { authenticateKey, type RelayCaller } from "@/lib/relay/memory/key-auth";
import { decodePathSegment, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { MODEL_PREFIX, MODELS_PATH } from "@/lib/relay/endpoints";
import { openAIError, RelayError } from "@/lib/relay/errors";
import { routingTable } from "@/lib/relay/memory/key-user-channel-cache";
import { getDirectDb } from "@/lib/db/direct";
import { big } from "@/lib/db/num";
import { visibleQuota, visibleRemain } from "@/lib/billing/visible";

/** new-api's fixed "created" for listed models. */
const MODEL_CREATED = 1626777600;

const json = (status: number, body: unknown, requestId: string): RelayResponse => ({
  status,
  headers: { "content-type": "application/json", "x-oneapi-request-id": requestId },
  body: JSON.stringify(body),
});

function ownerOf(model: string): string {
  if (/^(gpt|o\d|dall-e|whisper|tts|text-|chatgpt|davinci|babbage)/.test(model)) return "openai";
  if (model.startsWith("claude")) return "anthropic";
  if (model.startsWith("gemini")) return "google";
  if (model.startsWith("deepseek")) return "deepseek";
  return "custom";
}

/**
 * The models a key may call: its model limits, else every model its group's channels serve;
 * either way only those with a price (a model without one is refused 倍率或价格未配置, so a
 * client that offers it would offer a certain failure). Memoised per options and list.
 */
export async function callerModels(caller: RelayCaller): Promise<readonly string[]> {
  const options = loadedOptions() ?? (await getOptions());
  const models = caller.key?.modelLimits ?? (await routingTable()).modelsByGroup.get(caller.group) ?? NO_MODELS;
  return pricedModels(options, models);
}

const NO_MODELS: readonly string[] = [];

/** A caller of Anthropic's API (its SDK sends `anthropic-version` on every request). */
export const isAnthropicCaller = (req: RelayRequest): boolean => req.headers.get("anthropic-version") !== null;

export async function serveModels(req: RelayRequest, path: string, requestId: string): Promise<RelayResponse> {
  const models = await callerModels(await authenticateKey(req));
  if (isAnthropicCaller(req)) return anthropicModels(req, path, models, requestId);
  const item = (id: string) => ({ id, object: "model", created: MODEL_CREATED, owned_by: ownerOf(id) });
  if (path === MODELS_PATH) return json(200, { object: "list", data: models.map(item) }, requestId);
  const id = decodePathSegment(path.slice(MODEL_PREFIX.length));
  if (!models.includes(id)) {
    const { status, body } = openAIError(
      404,
      `The model '${id}' does not exist`,
      "invalid_request_error",
      "model_not_found",
      "model",
      requestId,
    );
    return json(status, body, requestId);
  }
  return json(200, item(id), requestId);
}

const ANTHROPIC_LIST_LIMIT = { default: 20, max: 1000 };

/**
 * The model list in Anthropic's shape (GET /v1/models with `anthropic-version`): `{data: [{type:
 * "model", id, display_name, created_at}], has_more, first_id, last_id}`, paged by `limit`,
 * `after_id` and `before_id` as Anthropic pages it; one model by its id; 404 in Anthropic's shape.
 */
function anthropicModels(req: RelayRequest, path: string, models: readonly string[], requestId: string): RelayResponse {
  const createdAt = new Date(MODEL_CREATED * 1000).toISOString();
  const item = (id: string) => ({ type: "model", id, display_name: id, created_at: createdAt });
  if (path !== MODELS_PATH) {
    const id = decodePathSegment(path.slice(MODEL_PREFIX.length));
    if (!models.includes(id)) throw new RelayError(404, `model: ${id}`, { code: "model_not_found" });
    return json(200, item(id), requestId);
  }
  const q = req.query;
  const raw = q.get("limit");
  const limit = raw === null ? ANTHROPIC_LIST_LIMIT.default : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > ANTHROPIC_LIST_LIMIT.max) {
    throw new RelayError(400, `limit: must be an integer from 1 to ${ANTHROPIC_LIST_LIMIT.max}`, { type: "invalid_request_error" });
  }
  const after = q.get("after_id");
  const before = q.get("before_id");
  let start = 0;
  let end = models.length;
  if (after !== null) start = models.indexOf(after) + 1;
  if (before !== null) end = Math.max(0, models.indexOf(before));
  // before_id pages backwards: the `limit` models just before it.
  const page =
    before !== null && after === null ? models.slice(Math.max(start, end - limit), end) : models.slice(start, Math.min(end, start + limit));
  const hasMore = before !== null && after === null ? end - limit > start : start + limit < end;
  return json(200, { data: page.map(item), has_more: hasMore, first_id: page[0] ?? null, last_id: page.at(-1) ?? null }, requestId);
}

export async function serveBilling(req: RelayRequest, path: string, requestId: string): Promise<RelayResponse> {
  const caller = await authenticateKey(req);
  const options = await getOptions();
  const perUnit = options.QuotaPerUnit;
  const toAmount = (quota: bigint | number) => (options.DisplayInCurrencyEnabled ? Number(quota) / perUnit : Number(quota));
  const db = await getDirectDb();
  // DisplayTokenStatEnabled (one-api's "额度查询接口返回令牌额度而非用户额度"): a limited key
  // reports its own quota; an unlimited one, or any key while the option is off, its owner's.
  const limited = options.DisplayTokenStatEnabled && caller.key && !caller.key.unlimited ? caller.key : null;
  const [row] = limited
    ? await db.query("SELECT remain_quota, used_quota FROM tokens WHERE id = ?", [limited.id])
    : await db.query("SELECT quota, used_quota FROM users WHERE id = ?", [caller.user.id]);
  if (path.endsWith("/subscription")) {
    // Balances as shown (the ledger's open leases added back): see lib/billing/visible.
    let remaining = 0n;
    if (row && limited) remaining = (await visibleRemain({ id: limited.id, remain_quota: big(row.remain_quota) })).remain_quota;
    else if (row) remaining = (await visibleQuota({ id: caller.user.id, quota: big(row.quota) })).quota;
    if (row) remaining += big(row.used_quota);
    const limit = toAmount(remaining);
    const expires = caller.key && caller.key.expiredTime > 0 ? caller.key.expiredTime : 0;
    return json(
      200,
      {
        object: "billing_subscription",
        has_payment_method: true,
        soft_limit_usd: limit,
        hard_limit_usd: limit,
        system_hard_limit_usd: limit,
        access_until: expires,
      },
      requestId,
    );
  }
  // OpenAI reports usage in cents.
  return json(200, { object: "list", total_usage: toAmount(big(row?.used_quota)) * 100 }, requestId);
}
