// The relay pipeline: request in, response out, for every OpenAI-style endpoint.
//
//   authenticate (key or playground session) → read the model → check limits → price →
//   reserve quota → try channels (failover on retriable errors, before any byte reaches the
//   client) → relay the answer (streamed or whole) → settle exactly the quota used → log.
//
// Adapters (lib/relay/providers) only build upstream requests; this module owns timeouts,
// retries, channel fallback, usage, billing and logging. Nothing here reads the database in the
// steady state: keys, users, channels and options come from memory (lib/relay/state, options).
import { env } from "@/lib/env";
import { usageBucket } from "@/lib/data/buckets";
import { getOptions, loadedOptions, type OptionValues } from "@/lib/options";
import { isQuotaShortfall, type Reservation } from "@/lib/billing/ledger";
import { resolvePricing, type Pricing } from "@/lib/billing/ratios";
import {
  breakdownJsonOpen,
  clampUsage,
  estimateReserve,
  quotaForImages,
  quotaForSpeech,
  quotaForTokens,
  type QuotaResult,
} from "@/lib/billing/price";
import { setChannelStatus } from "@/lib/channels/routing";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { LOG_TYPE } from "@/lib/logs/write";
import { authenticateKey, authenticateSession, checkModelAllowed, type RelayCaller } from "@/lib/relay/auth";
import {
  CORS_HEADERS,
  CORS_RESPONSE_HEADERS,
  decodePathSegment,
  type RelayRequest,
  type RelayResponse,
  type RelaySink,
  type RelayStreamBody,
} from "@/lib/relay/http";
import { UpstreamExchange, type UpstreamSink } from "@/lib/relay/upstream";
import { agentForChannel, getLedger, onRelayShutdown, readyLedger } from "@/lib/relay/runtime";
import { noteCharge } from "@/lib/billing/quota-remind";
import { cachedRoutingTable, noteUserQuota, pickChannel, routingTable, type RouteChannel } from "@/lib/relay/state";
import {
  applyStatusCodeMapping,
  describeUpstreamNetworkError,
  errorFromJson,
  newRequestId,
  openAIError,
  parseUpstreamError,
  RelayError,
  shouldDisableChannel,
  shouldRetry,
  UPSTREAM_ERROR_TYPE,
  type UpstreamError,
} from "@/lib/relay/errors";
import { getProvider, relayRefusal } from "@/lib/relay/providers";
import type { UpstreamRequest } from "@/lib/relay/providers";
import { resolveUpstreamModel } from "@/lib/relay/channel";
import { OpenAIStreamRelay, type OpenAIStreamOptions, type StreamEndReason } from "@/lib/relay/openai-stream";
import { SSE_HEADERS, SSE_PING } from "@/lib/relay/sse";
import { countJsonPromptTokens, countPromptPlan, type PromptPlan } from "@/lib/relay/tokens";
import {
  bodyFromMembers,
  LARGE_BODY_BYTES,
  parseJsonRequest,
  type RelayErrorData,
  relayErrorOf,
  reservePromptTokens,
  summariseJsonBody,
} from "@/lib/relay/request-body";
import { extractResponseUsage } from "@/lib/relay/openai-response";
import { readMultipartForm } from "@/lib/relay/multipart";
import { checkRequestBody, invalidRequest, requestModel } from "@/lib/relay/request-rules";
import { answerContentType, isMarkupType, JSON_TYPE, looksLikeJson } from "@/lib/relay/answer-type";
import { hideKey, maskSensitiveText } from "@/lib/relay/mask";
import type { RelayMode, Usage } from "@/lib/relay/types";
import { serveModels, serveBilling } from "@/lib/relay/info";
import {
  BILLING_PATH,
  ENGINE_EMBEDDINGS,
  MODEL_PREFIX,
  MODELS_PATH,
  NOT_IMPLEMENTED,
  OPENAI_PATHS,
  PLAYGROUND_PATH,
  ROUTES,
} from "@/lib/relay/endpoints";
import { findSensitiveWord, matcherFor, promptCheckEnabled, sensitiveWordError } from "@/lib/relay/sensitive";

const JSON_HEADERS = { "content-type": "application/json" };

function errorResponse(
  status: number,
  message: string,
  type: string,
  code: string | number | null,
  requestId: string,
  param: string | null = null,
): RelayResponse {
  const { body } = openAIError(status, message, type, code, param, requestId);
  return { status, headers: { ...JSON_HEADERS, "x-oneapi-request-id": requestId }, body: JSON.stringify(body) };
}

function relayErrorResponse(e: RelayError, requestId: string): RelayResponse {
  return errorResponse(e.status, e.message, e.type, e.code, requestId, e.param);
}

export function handleRelay(req: RelayRequest): Promise<RelayResponse> {
  if (req.method === "OPTIONS") return Promise.resolve({ status: 204, headers: { ...CORS_HEADERS }, body: null });
  // CORS headers only for browsers (they always send Origin cross-site): API clients skip the bytes.
  if (req.headers.get("origin") === null) return answer(req);
  return answer(req).then((out) => {
    Object.assign(out.headers, CORS_RESPONSE_HEADERS);
    return out;
  });
}

async function answer(req: RelayRequest): Promise<RelayResponse> {
  const requestId = newRequestId();
  try {
    const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
    if (req.method === "GET" && (path === MODELS_PATH || path.startsWith(MODEL_PREFIX))) {
      return await serveModels(req, path, requestId);
    }
    if (req.method === "GET" && BILLING_PATH.test(path)) {
      return await serveBilling(req, path, requestId);
    }
    // The served routes first: one lookup, no pattern, for nearly every request.
    const served = req.method === "POST" ? ROUTES[path] : undefined;
    if (served) return await relayCall(req, path, served.mode, served.defaultModel, requestId);
    if (NOT_IMPLEMENTED.test(path) || (req.method === "DELETE" && path.startsWith(MODEL_PREFIX))) {
      return errorResponse(501, "API not implemented", "new_api_error", "api_not_implemented", requestId);
    }
    const embeddingsByPath = ENGINE_EMBEDDINGS.exec(path);
    const route = ROUTES[path] ?? (embeddingsByPath ? ROUTES[OPENAI_PATHS.embeddings] : undefined);
    if (!route || req.method !== "POST") {
      return errorResponse(404, `Invalid URL (${req.method} ${req.path})`, "invalid_request_error", null, requestId);
    }
    return await relayCall(req, path, route.mode, route.defaultModel || decodePathSegment(embeddingsByPath?.[1] ?? ""), requestId);
  } catch (error) {
    if (error instanceof RelayError) return relayErrorResponse(error, requestId);
    console.error(`[relay] ${requestId} failed:`, error);
    return errorResponse(500, "服务器内部错误", "new_api_error", "internal_error", requestId);
  }
}

type ParsedBody = {
  json: Record<string, unknown> | null;
  model: string;
  stream: boolean;
  contentType: string;
  /** transcriptions/translations: the form's `response_format`. */
  responseFormat?: string;
  /** A large body (LARGE_BODY_BYTES or more), read in one go (summariseJsonBody): what was found. */
  large?: { rulesError: RelayErrorData | null; reserveTokens: number; prompt: PromptPlan; sensitiveWord: string | null };
};

const decoder = new TextDecoder();

function parseOrNull(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
}

/** `sensitiveWords`: the SensitiveWords option when prompts are checked (a large body is looked at where it is read). */
function parseBody(
  req: RelayRequest,
  mode: RelayMode,
  defaultModel: string,
  sensitiveWords: string | null,
): ParsedBody | Promise<ParsedBody> {
  const contentType = req.headers.get("content-type") ?? "";
  if (mode === "transcriptions" || mode === "translations") {
    if (!/^multipart\/form-data/i.test(contentType)) throw new RelayError(400, "请求须为 multipart/form-data", { code: "invalid_request" });
    const form = readMultipartForm(req.body, contentType);
    if (!form)
      throw new RelayError(400, "请求体不是合法的 multipart/form-data", { type: "invalid_request_error", code: "invalid_multipart" });
    if (!form.names.has("file")) throw invalidRequest("file", "缺少 file 字段（要转写的音频文件）");
    const model = form.fields.model ?? defaultModel;
    if (model === "") throw invalidRequest("model", "model 必须是非空字符串");
    return { json: null, model, stream: false, contentType, responseFormat: form.fields.response_format };
  }
  // Clients that forget the JSON content type still get their model read (a classic new-api trap).
  if (req.body.length >= LARGE_BODY_BYTES) return parseLargeBody(req, mode, defaultModel, contentType, sensitiveWords);
  const body = parseJsonRequest(req.body);
  return {
    json: body,
    model: requestModel(body, defaultModel),
    stream: body.stream === true,
    contentType: contentType || "application/json",
  };
}

/**
 * A large JSON body: parsed, checked, estimated and walked for the count in one go, in the body
 * thread when the transport has one (the Node entry); the event loop keeps only the summary, and
 * reads a large member itself only if something asks.
 */
async function parseLargeBody(
  req: RelayRequest,
  mode: RelayMode,
  defaultModel: string,
  contentType: string,
  sensitiveWords: string | null,
): Promise<ParsedBody> {
  const read = req.summariseJsonBody
    ? await req.summariseJsonBody(mode, defaultModel, sensitiveWords)
    : summariseJsonBody(req.body, mode, defaultModel, sensitiveWords);
  if (!read.ok) throw relayErrorOf(read.error);
  const { summary } = read;
  const json = bodyFromMembers(summary.members, req.body, summary.unlisted);
  return {
    json,
    model: summary.model,
    stream: json.stream === true,
    contentType: contentType || "application/json",
    large: {
      rulesError: summary.rulesError,
      reserveTokens: summary.reserveTokens,
      prompt: summary.prompt,
      sensitiveWord: summary.sensitiveWord,
    },
  };
}

/** The endpoint's rules (request-rules.ts): checked with the rest of the reading for a large body. */
function checkBody(mode: RelayMode, body: ParsedBody): void {
  if (body.large) {
    if (body.large.rulesError) throw relayErrorOf(body.large.rulesError);
  } else if (body.json) checkRequestBody(mode, body.json);
}

/**
 * The sensitive-word filter on the prompt (sensitive.ts), after the endpoint's rules and before
 * anything is reserved or sent: a hit is a 400 and costs nothing. `sensitiveWords` is null when
 * the filter is off (a large body was already looked at where it was read).
 */
function checkPromptWords(sensitiveWords: string | null, body: ParsedBody): void {
  if (sensitiveWords === null) return;
  const word = body.large ? body.large.sensitiveWord : body.json ? findSensitiveWord(body.json, matcherFor(sensitiveWords)) : null;
  if (word !== null) throw sensitiveWordError(word);
}

function clientWantsUsage(json: Record<string, unknown> | null): boolean {
  const so = json?.stream_options;
  return !!so && typeof so === "object" && (so as Record<string, unknown>).include_usage === true;
}

type Priced = { result: ReturnType<typeof resolvePricing>; content: string };
/** Pricing per (group, model), per options snapshot: options objects are replaced on every change. */
const pricingMemo = new WeakMap<OptionValues, Map<string, Priced>>();

function priceFor(options: OptionValues, model: string, group: string): Priced {
  let memo = pricingMemo.get(options);
  if (!memo) pricingMemo.set(options, (memo = new Map()));
  const key = `${group}\0${model}`;
  let hit = memo.get(key);
  if (!hit) {
    const result = resolvePricing(model, pricingOptions(options), group);
    const p = result.ok ? result.pricing : null;
    const content = !p
      ? ""
      : p.kind === "price"
        ? `模型价格 ${p.modelPrice.toFixed(2)}，分组倍率 ${p.groupRatio.toFixed(2)}`
        : `模型倍率 ${p.modelRatio.toFixed(2)}，补全倍率 ${p.completionRatio.toFixed(2)}，分组倍率 ${p.groupRatio.toFixed(2)}`;
    if (memo.size > 10_000) memo.clear();
    memo.set(key, (hit = { result, content }));
  }
  return hit;
}

function pricingOptions(o: OptionValues) {
  return {
    modelRatio: o.ModelRatio as Record<string, number>,
    modelPrice: o.ModelPrice as Record<string, number>,
    completionRatio: o.CompletionRatio as Record<string, number>,
    groupRatio: o.GroupRatio as Record<string, number>,
    cacheRatio: o.CacheRatio as Record<string, number>,
    selfUseModeEnabled: o.SelfUseModeEnabled as boolean,
    quotaPerUnit: o.QuotaPerUnit as number,
  };
}

/**
 * One relay call's state. A class, not an object literal: V8 builds a literal with a getter
 * through a slow runtime path (~0.4 µs), a class instance in a few nanoseconds.
 */
class CallContext {
  readonly tried: number[] = [];
  private counted: number | undefined;
  constructor(
    readonly req: RelayRequest,
    readonly requestId: string,
    readonly mode: RelayMode,
    readonly caller: RelayCaller,
    readonly body: ParsedBody,
    readonly pricing: Pricing,
    /** The log row's content line for this pricing. */
    readonly logContent: string,
    readonly options: OptionValues,
    readonly reservation: Reservation,
    readonly startedAt: number,
  ) {}
  /** Prompt tokens counted locally; computed on first read (only when the upstream reports none). */
  get promptTokens(): number {
    return (this.counted ??= countPrompt(this.mode, this.body));
  }
}

async function relayCall(
  req: RelayRequest,
  path: string,
  mode: RelayMode,
  defaultModel: string,
  requestId: string,
): Promise<RelayResponse> {
  const startedAt = Date.now();
  const playground = path === PLAYGROUND_PATH;
  const options = loadedOptions() ?? (await getOptions());
  const sensitiveWords = promptCheckEnabled(options) ? (options.SensitiveWords as string) : null;
  // Authenticate before parsing: an unauthenticated caller learns nothing about body rules.
  let caller: RelayCaller;
  let body: ParsedBody;
  if (playground) {
    const parsed = parseBody(req, mode, defaultModel, sensitiveWords);
    body = parsed instanceof Promise ? await parsed : parsed;
    caller = await authenticateSession(req, typeof body.json?.group === "string" ? body.json.group : undefined);
  } else {
    // In the steady state the key, the routing table, the options and the ledger are all in
    // memory: each is taken without an await, which would cost a turn of the microtask queue.
    const authenticated = authenticateKey(req);
    caller = authenticated instanceof Promise ? await authenticated : authenticated;
    const parsed = parseBody(req, mode, defaultModel, sensitiveWords);
    body = parsed instanceof Promise ? await parsed : parsed;
  }
  // After authentication (the playground parses first, for its group), before any reservation.
  checkBody(mode, body);
  checkModelAllowed(caller, body.model);
  checkPromptWords(sensitiveWords, body);

  // Find a channel before pricing and reserving: "no channel" is the clearest answer for an
  // unknown model, and it costs no database write.
  const table = cachedRoutingTable() ?? (await routingTable());
  if (caller.pinnedChannelId !== null) {
    const pinned = table.byId.get(caller.pinnedChannelId);
    if (!pinned) throw new RelayError(403, `渠道 #${caller.pinnedChannelId} 不存在`);
    if (pinned.row.status !== CHANNEL_STATUS.enabled) throw new RelayError(403, "该渠道已被禁用");
    const refusal = relayRefusal(pinned.row.type);
    if (refusal) throw new RelayError(400, refusal, { code: "invalid_api_type" });
  } else if (!pickChannel(table, caller.group, body.model, new Set())) {
    throw new RelayError(503, `当前分组 ${caller.group} 下对于模型 ${body.model} 无可用渠道`, { code: "model_not_found" });
  }

  const { result: priced, content: logContent } = priceFor(options, body.model, caller.group);
  if (!priced.ok) throw new RelayError(priced.error.status, priced.error.message, { code: priced.error.code });
  const pricing = priced.pricing;

  const reserveAmount = reserveFor(mode, pricing, body, reserveTokens(mode, body, req), options);
  const ledger = readyLedger() ?? (await getLedger());
  let reservation: Reservation;
  try {
    const owner = { userId: caller.user.id, tokenId: caller.key && !caller.key.unlimited ? caller.key.id : 0 };
    const amount = BigInt(reserveAmount);
    reservation = ledger.tryReserve(owner, amount) ?? (await ledger.reserve(owner, amount, caller.user.quotaHint));
  } catch (error) {
    if (isQuotaShortfall(error)) {
      if (error.who === "user") {
        noteUserQuota(caller.user.id, 0n);
        throw new RelayError(403, `用户额度不足，剩余额度不足以支付本次请求（预扣 ${reserveAmount}）`, {
          type: "insufficient_user_quota",
          code: "insufficient_user_quota",
        });
      }
      if (caller.key) caller.key.remainHint = 0n;
      throw new RelayError(403, `令牌额度不足 ${caller.maskedKey}`, { type: "insufficient_user_quota", code: "insufficient_token_quota" });
    }
    throw error;
  }

  const ctx = new CallContext(req, requestId, mode, caller, body, pricing, logContent, options, reservation, startedAt);
  try {
    return await attemptChannels(ctx, table);
  } catch (error) {
    await settleFailure(ctx);
    throw error;
  }
}

/** Prompt tokens counted locally: the bill when the upstream reports no usage. */
function countPrompt(mode: RelayMode, body: ParsedBody): number {
  // A large body's count was planned where it was read: only the tokenizer's part is left.
  if (body.large) return countPromptPlan(body.large.prompt, body.model);
  if (!body.json) return 0; // multipart (transcriptions, translations): billed by the transcript
  return countJsonPromptTokens(mode, body.json, body.model);
}

/** Prompt tokens for the reservation (reservePromptTokens; computed where a large body was read). */
function reserveTokens(mode: RelayMode, body: ParsedBody, req: RelayRequest): number {
  if (mode === "images" || mode === "transcriptions" || mode === "translations") return 0;
  if (!body.json) return mode === "speech" ? 0 : Math.ceil(req.body.length / 4);
  if (body.large) return body.large.reserveTokens;
  return reservePromptTokens(mode, body.json, req.body, body.model);
}

function reserveFor(mode: RelayMode, pricing: Pricing, body: ParsedBody, promptTokens: number, options: OptionValues): number {
  const json = body.json ?? {};
  if (mode === "images") return quotaForImages(pricing, imageParams(json)).quota;
  const max =
    typeof json.max_completion_tokens === "number"
      ? json.max_completion_tokens
      : typeof json.max_tokens === "number"
        ? json.max_tokens
        : null;
  const noCompletion = mode === "embeddings" || mode === "moderations" || mode === "rerank" || mode === "speech";
  return estimateReserve(pricing, {
    promptTokens,
    maxTokens: noCompletion ? 0 : max,
    // PreConsumedQuota is an integer ≥ 0 (registry); 0 reserves the prompt only.
    preConsumedTokens: noCompletion ? 0 : (options.PreConsumedQuota as number),
    n: 1,
    // Every choice is a completion of its own (billed in full by the upstream's usage).
    choices: noCompletion || typeof json.n !== "number" ? 1 : json.n,
  });
}

function imageParams(json: Record<string, unknown>) {
  return {
    size: typeof json.size === "string" ? json.size : undefined,
    quality: typeof json.quality === "string" ? json.quality : undefined,
    n: typeof json.n === "number" ? json.n : 1,
  };
}

type Failure = { status: number; error: UpstreamError; retriable: boolean };

async function attemptChannels(ctx: CallContext, table: Awaited<ReturnType<typeof routingTable>>): Promise<RelayResponse> {
  const retryTimes = Math.max(0, Number(ctx.options.RetryTimes) || 0);
  const tried = new Set<number>();
  let last: Failure | null = null;
  for (let attempt = 0; attempt <= retryTimes; attempt++) {
    if (attempt > 0 && ctx.req.gone) break;
    const channel =
      ctx.caller.pinnedChannelId !== null
        ? attempt === 0
          ? table.byId.get(ctx.caller.pinnedChannelId)!
          : null
        : pickChannel(table, ctx.caller.group, ctx.body.model, tried);
    if (!channel) break;
    tried.add(channel.row.id);
    ctx.tried.push(channel.row.id);
    const outcome = await attemptOnce(ctx, channel);
    if ("response" in outcome) return outcome.response;
    last = outcome.failure;
    if (!last.retriable || ctx.caller.pinnedChannelId !== null) break;
  }
  if (!last) {
    throw new RelayError(503, `当前分组 ${ctx.caller.group} 下对于模型 ${ctx.body.model} 无可用渠道`, { code: "model_not_found" });
  }
  // Upstream text can carry the channel's key, URL or internal hosts: users see it masked.
  const message = last.status === 429 ? "当前分组上游负载已饱和，请稍后再试" : maskSensitiveText(last.error.message);
  await settleFailure(ctx, last);
  return errorResponse(last.status, message, last.error.type, last.error.code, ctx.requestId);
}

function buildUpstream(ctx: CallContext, channel: RouteChannel): { upstream: UpstreamRequest; upstreamModel: string } {
  const adapter = getProvider(channel.row.type);
  if (!adapter) throw new RelayError(400, relayRefusal(channel.row.type) ?? "未知的渠道类型", { code: "invalid_api_type" });
  const upstreamModel = resolveUpstreamModel(channel.config, ctx.body.model);
  const upstream = adapter.buildRequest({
    channel: channel.config,
    mode: ctx.mode,
    upstreamModel,
    requestModel: ctx.body.model,
    clientPath: ctx.req.path === PLAYGROUND_PATH ? OPENAI_PATHS.chat : ctx.req.path,
    clientQuery: ctx.req.query,
    body: ctx.req.body,
    contentType: ctx.body.contentType,
    stream: ctx.body.stream,
    json: ctx.body.json ?? undefined,
    playground: ctx.req.path === PLAYGROUND_PATH,
  });
  return { upstream, upstreamModel };
}

async function attemptOnce(ctx: CallContext, channel: RouteChannel): Promise<{ response: RelayResponse } | { failure: Failure }> {
  let built: ReturnType<typeof buildUpstream>;
  try {
    built = buildUpstream(ctx, channel);
  } catch (error) {
    if (error instanceof RelayError)
      return {
        failure: {
          status: error.status,
          error: { status: error.status, message: error.message, type: error.type, code: error.code, param: error.param },
          retriable: false,
        },
      };
    throw error;
  }
  const { upstream, upstreamModel } = built;
  let headers = upstream.headers;
  // Providers name it "Accept" (baseHeaders); one that sets none still asks for the stream.
  if (ctx.body.stream && headers.accept === undefined && headers.Accept === undefined)
    headers = { ...headers, accept: "text/event-stream" };
  const exchange = UpstreamExchange.send(agentForChannel(channel.row, ctx.options), {
    method: upstream.method,
    url: upstream.url,
    headers,
    body: upstream.body,
  });
  // A stream's upstream stops when the client leaves, also while waiting for the headers; a whole
  // answer runs to completion (it is billed either way, and skips the listener work).
  const unsubscribe = ctx.body.stream ? ctx.req.onGone(() => exchange.abort(new Error("client disconnected"))) : null;
  try {
    await exchange.response;
  } catch (error) {
    const { message, code } = describeUpstreamNetworkError(error);
    return {
      failure: { status: 502, error: { status: 502, message, type: UPSTREAM_ERROR_TYPE, code, param: null }, retriable: !ctx.req.gone },
    };
  } finally {
    unsubscribe?.();
  }

  const upstreamType = String(exchange.headers["content-type"] ?? "");
  const isSse = /text\/event-stream/i.test(upstreamType);
  if (exchange.status < 200 || exchange.status >= 300) {
    const text = await exchange.text(ERROR_BODY_LIMIT);
    return { failure: failureOf(ctx, channel, exchange.status, parseUpstreamError(exchange.status, text)) };
  }
  if (ctx.body.stream || isSse) {
    // A 200 page from a proxy or portal is no answer, streamed or not.
    if (!isSse && isMarkupType(upstreamType)) {
      exchange.abort(new Error("upstream answered markup"));
      return { failure: failureOf(ctx, channel, 502, unexpectedAnswer(upstreamType)) };
    }
    return { response: streamResponse(ctx, channel, upstream, upstreamModel, exchange) };
  }
  return wholeResponse(ctx, channel, upstream, upstreamModel, exchange);
}

/**
 * A 200 this endpoint never produces (an HTML page, a JSON endpoint answering text or nothing):
 * a bad gateway, not content to relay.
 */
function unexpectedAnswer(contentType: string): UpstreamError {
  const shown = contentType.split(";")[0]!.trim().slice(0, 100) || "none";
  return {
    status: 502,
    message: `上游的应答不是该接口能返回的内容 (content-type: ${shown})`,
    type: UPSTREAM_ERROR_TYPE,
    code: "bad_response_content_type",
    param: null,
  };
}

/** An error answer is read up to this size (its message is all we keep). */
const ERROR_BODY_LIMIT = 1024 * 1024;
/** A whole (non-streamed) answer larger than this is refused: base64 images and audio fit well. */
const WHOLE_BODY_LIMIT = 256 * 1024 * 1024;

/** Maps the status, decides about retrying, and auto-disables a dead channel. */
function failureOf(ctx: CallContext, channel: RouteChannel, upstreamStatus: number, upstreamError: UpstreamError): Failure {
  const status = applyStatusCodeMapping(upstreamStatus, channel.config.status_code_mapping);
  // An upstream may echo the channel's key; the reason and admin_info reach admins below root.
  const error = { ...upstreamError, message: hideKey(upstreamError.message, channel.row.key) };
  if (
    ctx.options.AutomaticDisableChannelEnabled &&
    channel.config.auto_ban &&
    shouldDisableChannel(upstreamStatus, error, channel.row.type)
  ) {
    const reason = `状态码 ${upstreamStatus}：${error.message}`.slice(0, 500);
    void setChannelStatus(channel.row.id, 3, reason).catch((e) => console.error("[relay] auto-disable failed:", e));
  }
  const retriable = !ctx.req.gone && shouldRetry(status, channel.row.type, { pinned: ctx.caller.pinnedChannelId !== null });
  return { status, error: { ...error, status }, retriable };
}

// Getters, not values: the local prompt count runs only if the upstream's usage is missing or
// absurd. Classes, not literals with getters (see CallContext).
class UsageContext {
  constructor(
    private readonly ctx: CallContext,
    readonly model: string,
    readonly responseFormat: string | undefined,
  ) {}
  get promptTokens(): number {
    return this.ctx.promptTokens;
  }
}

class PromptFallback {
  constructor(private readonly ctx: CallContext) {}
  get prompt_tokens(): number {
    return this.ctx.promptTokens;
  }
}

const PASS_HEADERS = ["content-type", "x-request-id", "openai-processing-ms", "openai-model", "openai-organization"];

async function wholeResponse(
  ctx: CallContext,
  channel: RouteChannel,
  upstream: UpstreamRequest,
  upstreamModel: string,
  exchange: UpstreamExchange,
): Promise<{ response: RelayResponse } | { failure: Failure }> {
  let raw: Buffer;
  try {
    raw = await exchange.bytes(WHOLE_BODY_LIMIT);
  } catch (error) {
    const { message, code } = describeUpstreamNetworkError(error);
    return {
      failure: { status: 502, error: { status: 502, message, type: UPSTREAM_ERROR_TYPE, code, param: null }, retriable: !ctx.req.gone },
    };
  }
  const upstreamType = String(exchange.headers["content-type"] ?? "");
  const responseFormat = ctx.body.responseFormat;
  let outType = answerContentType(ctx.mode, upstreamType, raw, responseFormat);
  if (outType === null) {
    // Not what this endpoint produces: an error object if it is one, else a bad gateway.
    const error = looksLikeJson(raw) ? errorFromJson(200, parseOrNull(raw)) : null;
    return { failure: failureOf(ctx, channel, error ? 500 : 502, error ?? unexpectedAnswer(upstreamType)) };
  }
  let body: Uint8Array | string = raw;
  let extracted = extractResponseUsage(ctx.mode, raw, new UsageContext(ctx, upstreamModel, responseFormat));
  // Some vendors answer 200 with an error object: treat it as the failure it is.
  if (extracted.error) return { failure: failureOf(ctx, channel, 500, extracted.error) };
  if (upstream.response && extracted.json !== null) {
    const converted = upstream.response.json(extracted.json);
    body = converted.body;
    outType = answerContentType(ctx.mode, converted.contentType, converted.body, responseFormat) ?? JSON_TYPE;
    extracted = extractResponseUsage(ctx.mode, converted.body, new UsageContext(ctx, upstreamModel, responseFormat));
  }
  let quota: QuotaResult;
  let usage = extracted.usage;
  if (ctx.mode === "images") {
    const params = imageParams(ctx.body.json ?? {});
    const json = extracted.json as { data?: unknown[] } | null;
    quota = quotaForImages(ctx.pricing, { ...params, n: Array.isArray(json?.data) && json.data.length ? json.data.length : params.n });
  } else if (ctx.mode === "speech") {
    quota = quotaForSpeech(ctx.pricing, ctx.promptTokens);
  } else {
    usage = clampUsage(usage, { fallback: new PromptFallback(ctx) }).usage;
    quota = quotaForTokens(ctx.pricing, usage);
  }
  // Settled right after the answer is written, not before: the client does not wait for the
  // bookkeeping. The reservation already covers the request, so nothing rides on the order.
  const sawUpstreamUsage = extracted.sawUpstreamUsage;
  setImmediate(() => {
    settle(ctx, channel, upstreamModel, usage, quota, false, { upstreamUsage: sawUpstreamUsage }).catch((error) => {
      console.error(`[relay] ${ctx.requestId} settle failed:`, error);
      return settleFailure(ctx);
    });
  });
  const headers: Record<string, string> = { "x-oneapi-request-id": ctx.requestId };
  for (const h of PASS_HEADERS) {
    const v = exchange.headers[h];
    if (typeof v === "string") headers[h] = v;
  }
  headers["content-type"] = outType;
  return { response: { status: 200, headers, body } };
}

function streamResponse(
  ctx: CallContext,
  channel: RouteChannel,
  upstream: UpstreamRequest,
  upstreamModel: string,
  exchange: UpstreamExchange,
): RelayResponse {
  const relay = new OpenAIStreamRelay(new StreamOptions(ctx, upstreamModel, upstream));
  const body = new RelayedStream(ctx, channel, upstreamModel, exchange, relay);
  return { status: 200, headers: { ...SSE_HEADERS, "x-oneapi-request-id": ctx.requestId }, body };
}

/** The stream relay's options; promptTokens is read only if the upstream reports no usage. */
class StreamOptions implements OpenAIStreamOptions {
  readonly mode: "chat" | "completions";
  readonly clientIncludeUsage: boolean;
  readonly requestId: string;
  readonly mapEvent: OpenAIStreamOptions["mapEvent"];
  constructor(
    private readonly ctx: CallContext,
    readonly model: string,
    upstream: UpstreamRequest,
  ) {
    this.mode = ctx.mode === "completions" ? "completions" : "chat";
    this.clientIncludeUsage = clientWantsUsage(ctx.body.json);
    this.requestId = ctx.requestId;
    this.mapEvent = upstream.response?.streamEvent?.bind(upstream.response);
  }
  get promptTokens(): number {
    return this.ctx.promptTokens;
  }
}

/** After [DONE] the rest of the upstream's answer is read for this long, to keep its connection. */
const DRAIN_AFTER_DONE_MS = 5_000;

/**
 * One interval for all open streams, not a timer per stream: it sends keep-alive comments, ends
 * silent streams and stops drains that take too long. Its period is a fifth of the shortest of
 * those limits (50 ms to 1 s), which is how late any of them may act; it stops while no stream
 * is open.
 */
class StreamSweeper {
  private readonly streams = new Set<RelayedStream>();
  private timer: NodeJS.Timeout | null = null;
  readonly pingEvery = env.STREAM_KEEPALIVE > 0 ? env.STREAM_KEEPALIVE * 1000 : 0;
  readonly silentLimit = env.STREAMING_TIMEOUT > 0 ? env.STREAMING_TIMEOUT * 1000 : 0;
  private readonly period = Math.min(
    1_000,
    Math.max(50, Math.min(this.pingEvery || Infinity, this.silentLimit || Infinity, DRAIN_AFTER_DONE_MS) / 5),
  );

  constructor() {
    onRelayShutdown(() => this.endAll());
  }

  add(stream: RelayedStream): void {
    this.streams.add(stream);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.period);
      this.timer.unref();
    }
  }

  delete(stream: RelayedStream): void {
    this.streams.delete(stream);
  }

  /** Ends every open stream now (shutdown), each billed for what it delivered. */
  endAll(): void {
    for (const stream of [...this.streams]) stream.shutdown();
  }

  private sweep(): void {
    if (this.streams.size === 0) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    const now = Date.now();
    for (const stream of this.streams) stream.tick(now);
  }
}

let sweeper: StreamSweeper | null = null;

/**
 * Ends every stream still running, as the server stops: the client gets an error event and
 * [DONE], the upstream is cut, and each is settled for what it delivered, synchronously, so the
 * ledger's closing flush writes the usage.
 */
export function endStreams(): void {
  sweeper?.endAll();
}

class RelayedStream implements RelayStreamBody, UpstreamSink {
  private sink: RelaySink | null = null;
  private finished = false;
  private clientGone = false;
  private upstreamOpen = true;
  private drainUntil = 0;
  private lastData = 0;
  private lastSent = 0;
  private readonly sweeper = (sweeper ??= new StreamSweeper());

  constructor(
    private readonly ctx: CallContext,
    private readonly channel: RouteChannel,
    private readonly upstreamModel: string,
    private readonly exchange: UpstreamExchange,
    private readonly relay: OpenAIStreamRelay,
  ) {}

  start(sink: RelaySink): void {
    this.sink = sink;
    this.lastData = this.lastSent = Date.now();
    this.sweeper.add(this);
    this.exchange.pipe(this);
  }

  /** The client went away. */
  cancel(): void {
    if (this.finished) return;
    this.clientGone = true;
    this.finish();
  }

  /** Called by the sweeper now and then: keep-alive, silence limit, drain limit. */
  tick(now: number): void {
    if (this.finished) {
      if (this.upstreamOpen && now >= this.drainUntil) this.exchange.abort(new Error("upstream still sending after [DONE]"));
      return;
    }
    const { silentLimit, pingEvery } = this.sweeper;
    if (silentLimit > 0 && now - this.lastData >= silentLimit) {
      this.write(this.relay.abort("timeout"));
      this.finish();
    } else if (pingEvery > 0 && now - this.lastSent >= pingEvery) {
      this.lastSent = now;
      this.sink!.write(SSE_PING);
    }
  }

  /** The server is stopping: end the stream now and bill what was delivered. */
  shutdown(): void {
    if (this.finished) {
      if (this.upstreamOpen) this.exchange.abort(new Error("server shutting down"));
      this.sweeper.delete(this);
      return;
    }
    this.write(this.relay.abort("shutdown"));
    this.finish();
  }

  // --- UpstreamSink ----------------------------------------------------------------------------

  data(chunk: Buffer): boolean {
    if (this.finished) return true; // the rest after [DONE], read to keep the connection
    this.lastData = Date.now();
    const out = this.relay.transform(chunk);
    let more = true;
    if (out) {
      this.lastSent = this.lastData;
      more = this.sink!.write(out);
    }
    if (this.relay.done) {
      this.finish();
      return true;
    }
    if (!more) this.sink!.onDrain(() => this.exchange.resume());
    return more;
  }

  end(): void {
    this.upstreamClosed();
    if (this.finished) return;
    this.write(this.relay.finish());
    this.finish();
  }

  error(): void {
    this.upstreamClosed();
    if (this.finished) return;
    // The upstream connection broke (or its body timed out).
    this.write(this.relay.abort("interrupted"));
    this.finish();
  }

  // ---------------------------------------------------------------------------------------------

  private upstreamClosed(): void {
    this.upstreamOpen = false;
    if (this.finished) this.sweeper.delete(this);
  }

  private write(bytes: Uint8Array | null): void {
    if (bytes && !this.clientGone) this.sink!.write(bytes);
  }

  /** Ends the client's stream (unless it is gone), settles the upstream side, bills. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.upstreamOpen && this.relay.endReason === "done" && !this.clientGone) this.drainUntil = Date.now() + DRAIN_AFTER_DONE_MS;
    else {
      this.sweeper.delete(this);
      if (this.upstreamOpen)
        this.exchange.abort(new Error(this.clientGone ? "client disconnected" : `stream ended (${this.relay.endReason})`));
    }
    if (!this.clientGone) this.sink!.end();
    const { ctx, relay } = this;
    const usage = clampUsage(relay.usage, { fallback: new PromptFallback(ctx) }).usage;
    const quota = quotaForTokens(ctx.pricing, usage);
    const frt = relay.firstTokenAt ?? relay.firstByteAt;
    // Not awaited: the response has ended; the bookkeeping follows in the same turn.
    settle(ctx, this.channel, this.upstreamModel, usage, quota, true, {
      frt: frt ? frt - ctx.startedAt : -1000,
      clientGone: this.clientGone,
      streamEnd: relay.endReason ?? undefined,
      upstreamUsage: relay.sawUpstreamUsage,
    }).catch((error) => {
      console.error(`[relay] ${ctx.requestId} settle failed:`, error);
      return settleFailure(ctx);
    });
  }
}

/** What a settled request adds to its log row's `other` beside the price. */
type SettleExtra = {
  /** Whether the upstream reported usage (else it was counted locally). */
  upstreamUsage: boolean;
  /** Milliseconds to the first token (streams); the whole answer's time otherwise. */
  frt?: number;
  clientGone?: boolean;
  streamEnd?: StreamEndReason;
};

/**
 * The consume log's `other` JSON (new-api's keys): the price breakdown, `upstream_usage`,
 * `frt`, `client_gone` and `stream_end` for streams, `admin_info.use_channel`, `request_path`,
 * and the model mapping when there was one. Written out rather than built as an object for
 * JSON.stringify, which costs ~0.1 µs per key on this Node.
 */
function otherJson(ctx: CallContext, quota: QuotaResult, upstreamModel: string, extra: SettleExtra): string {
  let out = breakdownJsonOpen(ctx.pricing, quota.breakdown);
  out += `,"upstream_usage":${extra.upstreamUsage ? "true" : "false"}`;
  if (extra.clientGone) out += `,"client_gone":true`;
  if (extra.streamEnd !== undefined) out += `,"stream_end":${JSON.stringify(extra.streamEnd)}`;
  out += `,"frt":${extra.frt ?? Date.now() - ctx.startedAt}`;
  out += `,"admin_info":{"use_channel":[${ctx.tried.map((id) => `"${id}"`).join(",")}]}`;
  out += `,"request_path":${JSON.stringify(ctx.req.path)}`;
  if (upstreamModel !== ctx.body.model) out += `,"is_model_mapped":true,"upstream_model_name":${JSON.stringify(upstreamModel)}`;
  return `${out}}`;
}

async function settle(
  ctx: CallContext,
  channel: RouteChannel,
  upstreamModel: string,
  usage: Usage,
  quota: QuotaResult,
  isStream: boolean,
  extra: SettleExtra,
) {
  const ledger = readyLedger() ?? (await getLedger());
  const useTime = Math.max(0, Math.round((Date.now() - ctx.startedAt) / 1000));
  const content = ctx.logContent;
  const tokenName = ctx.caller.key ? ctx.caller.key.name : `playground-${ctx.caller.group}`;
  const log = ctx.options.LogConsumeEnabled
    ? {
        user_id: ctx.caller.user.id,
        created_at: Math.floor(Date.now() / 1000),
        type: LOG_TYPE.consume,
        content,
        username: ctx.caller.user.username,
        token_name: tokenName,
        model_name: ctx.body.model,
        quota: 0n,
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        use_time: useTime,
        is_stream: isStream,
        channel_id: channel.row.id,
        token_id: ctx.caller.key?.id ?? 0,
        group: ctx.caller.group,
        request_id: ctx.requestId,
        other: otherJson(ctx, quota, upstreamModel, extra),
      }
    : null;
  const charged = await ledger.settle(ctx.reservation, BigInt(quota.quota), {
    userId: ctx.caller.user.id,
    tokenId: ctx.caller.key?.id ?? 0,
    channelId: channel.row.id,
    modelName: ctx.body.model,
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    log,
    bucket: usageBucket(ctx.options, ctx.caller.user.username, Math.floor(Date.now() / 1000)),
  });
  noteCharge(ctx.caller.user, charged, ctx.options.QuotaRemindThreshold, ledger);
}

/**
 * The error row's admin part: the channels tried and, when masking changed what users see in
 * `content`, the upstream's full text (GET /api/log shows admin_info, /api/log/self drops it).
 */
function errorAdminInfo(ctx: CallContext, full: string, shown: string): { use_channel: string[]; error_message?: string } {
  const useChannel = ctx.tried.map(String);
  return shown === full ? { use_channel: useChannel } : { use_channel: useChannel, error_message: full.slice(0, ERROR_LOG_CHARS) };
}

/** An error row keeps this much of the message. */
const ERROR_LOG_CHARS = 1000;

/** Returns the whole reservation (the request failed and used nothing) and logs the error. */
async function settleFailure(ctx: CallContext, failure?: Failure) {
  if (ctx.reservation.settled) return;
  const ledger = await getLedger();
  const full = failure?.error.message ?? "";
  const shown = maskSensitiveText(full);
  const log =
    failure && ctx.options.LogConsumeEnabled
      ? {
          user_id: ctx.caller.user.id,
          created_at: Math.floor(Date.now() / 1000),
          type: LOG_TYPE.error,
          content: shown.slice(0, ERROR_LOG_CHARS),
          username: ctx.caller.user.username,
          token_name: ctx.caller.key ? ctx.caller.key.name : `playground-${ctx.caller.group}`,
          model_name: ctx.body.model,
          quota: 0n,
          prompt_tokens: 0,
          completion_tokens: 0,
          use_time: Math.max(0, Math.round((Date.now() - ctx.startedAt) / 1000)),
          is_stream: ctx.body.stream,
          channel_id: ctx.tried[ctx.tried.length - 1] ?? 0,
          token_id: ctx.caller.key?.id ?? 0,
          group: ctx.caller.group,
          request_id: ctx.requestId,
          other: JSON.stringify({
            status_code: failure.status,
            error_type: failure.error.type,
            error_code: failure.error.code,
            admin_info: errorAdminInfo(ctx, full, shown),
            request_path: ctx.req.path,
          }),
        }
      : null;
  await ledger.settle(ctx.reservation, 0n, {
    userId: ctx.caller.user.id,
    tokenId: 0,
    channelId: 0,
    modelName: ctx.body.model,
    promptTokens: 0,
    completionTokens: 0,
    log,
    failed: true,
  });
}
