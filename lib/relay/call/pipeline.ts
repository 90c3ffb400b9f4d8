// The relay pipeline: request in, response out, for every OpenAI-style endpoint.
//
//   endpoint (endpoints.ts) → authenticate (key or playground session) → read the model and check
//   the request (parse-request.ts) → check limits → price and reserve quota (pricing.ts) → try
//   channels, failover on retriable errors before any byte reaches the client (attempts.ts) →
//   relay the answer, streamed (stream-response.ts) or whole (whole-response.ts) → settle exactly
//   the quota used and log (settle.ts). One call's state travels in a CallContext (call-context.ts).
//
// Adapters (lib/relay/providers) only build upstream requests; these modules own timeouts,
// retries, channel fallback, usage, billing and logging. Nothing here reads the database in the
// steady state: keys, users, channels and options come from memory (lib/relay/memory/key-user-channel-cache, options).
import { getOptions, loadedOptions, type OptionValues } from "@/lib/options";
import { admitCall, type CallLimits, LimitRefusal, tokenEstimate } from "@/lib/limits/engine";
import { isQuotaShortfall, type Reservation } from "@/lib/billing/ledger";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { authenticateSession, checkModelAllowed, keyCaller, type RelayCaller, shortfallRefusal } from "@/lib/relay/memory/key-auth";
import { attemptChannels } from "@/lib/relay/call/attempts";
import { CallContext, type ParsedBody } from "@/lib/relay/call/call-context";
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
import { newRequestId, noChannelError, RelayError } from "@/lib/relay/errors";
import {
  CORS_HEADERS,
  CORS_RESPONSE_HEADERS,
  decodePathSegment,
  type ErrorShape,
  errorResponse,
  relayErrorResponse,
  type RelayRequest,
  type RelayResponse,
} from "@/lib/relay/http";
import { isAnthropicCaller, serveBilling, serveModels } from "@/lib/relay/call/models-and-billing";
import { anthropicProtocol } from "@/lib/relay/inbound/anthropic";
import { type InboundCall, type InboundProtocol, type InboundRoute, matchInbound, readInbound } from "@/lib/relay/inbound";
import { requestModel } from "@/lib/relay/request/request-rules";
import { checkBody, checkCallerPromptWords, checkPromptWords, parseBody } from "@/lib/relay/call/parse-request";
import { priceFor, reserveFor, reserveTokens } from "@/lib/relay/call/pricing";
import { getLedger, readyLedger } from "@/lib/relay/memory/runtime";
import { relayRefusal } from "@/lib/relay/providers";
import { admitRequest } from "@/lib/relay/call/rate-limit";
import { promptCheckEnabled } from "@/lib/relay/request/sensitive";
import { settleFailure } from "@/lib/relay/call/settle";
import { callLogOn, logAnswer } from "@/lib/relay/call/call-log";
import { cachedRoutingTable, pickChannel, routingTable } from "@/lib/relay/memory/key-user-channel-cache";
import type { RelayMode } from "@/lib/relay/types";
import { matchTaskRoute } from "@/lib/tasks/registry";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

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
  const startedAt = Date.now();
  // Set once the path names another caller protocol: its errors are answered in its shape.
  let inbound: ReturnType<typeof matchInbound> = null;
  let errorShape: ErrorShape | undefined;
  try {
    const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
    if (req.method === "GET" && (path === MODELS_PATH || path.startsWith(MODEL_PREFIX))) {
      // Anthropic's SDK lists models on the same path: its errors in its shape too.
      if (isAnthropicCaller(req)) errorShape = anthropicProtocol;
      return answered(await serveModels(req, path, requestId), req, requestId, startedAt);
    }
    if (req.method === "GET" && BILLING_PATH.test(path)) {
      return answered(await serveBilling(req, path, requestId), req, requestId, startedAt);
    }
    // The served routes first: one lookup, no pattern, for nearly every request.
    const served = req.method === "POST" ? ROUTES[path] : undefined;
    if (served) return await relayCall(req, path, served.mode, served.defaultModel, requestId);
    // Tasks (lib/tasks): Midjourney, Suno, OpenAI's videos; their errors in the platform's shape.
    const task = matchTaskRoute(req.method, path);
    if (task) {
      errorShape = task.platform.errorShape;
      return answered(await task.handler(req, requestId), req, requestId, startedAt);
    }
    inbound = matchInbound(req.method, path, req.query);
    if (inbound) {
      const { protocol, match } = inbound;
      if ("serve" in match) return answered(await match.serve(req, requestId), req, requestId, startedAt);
      return await relayCall(req, path, "chat", match.call.model ?? "", requestId, { protocol, route: match.call });
    }
    if (NOT_IMPLEMENTED.test(path) || (req.method === "DELETE" && path.startsWith(MODEL_PREFIX))) {
      return answered(
        errorResponse(501, "API not implemented", "new_api_error", "api_not_implemented", requestId),
        req,
        requestId,
        startedAt,
      );
    }
    const embeddingsByPath = ENGINE_EMBEDDINGS.exec(path);
    const route = ROUTES[path] ?? (embeddingsByPath ? ROUTES[OPENAI_PATHS.embeddings] : undefined);
    if (!route || req.method !== "POST") {
      return answered(
        errorResponse(404, `Invalid URL (${req.method} ${req.path})`, "invalid_request_error", null, requestId),
        req,
        requestId,
        startedAt,
      );
    }
    return await relayCall(req, path, route.mode, route.defaultModel || decodePathSegment(embeddingsByPath?.[1] ?? ""), requestId);
  } catch (error) {
    const protocol = inbound?.protocol ?? errorShape;
    if (error instanceof RelayError) {
      // A call that held quota had its line at its settlement (settle.ts); this is a refusal before.
      if (callLogOn && !(error instanceof SettledCallError)) logAnswer(requestId, req.path, error.status, startedAt, error.code);
      return relayErrorResponse(error, requestId, protocol);
    }
    log.error({ err: error, requestId, path: req.path }, "request failed");
    return errorResponse(500, "服务器内部错误", "new_api_error", "internal_error", requestId, null, protocol);
  }
}

/** An answer that settles nothing (a list, a task's answer, an unknown path): its call line, then it. */
function answered(out: RelayResponse, req: RelayRequest, requestId: string, startedAt: number): RelayResponse {
  if (callLogOn) logAnswer(requestId, req.path, out.status, startedAt);
  return out;
}

/** A call's error after its settlement, which logged it: the pipeline answers it without a second line. */
class SettledCallError extends RelayError {}

async function relayCall(
  req: RelayRequest,
  path: string,
  mode: RelayMode,
  defaultModel: string,
  requestId: string,
  inbound?: { protocol: InboundProtocol; route: InboundRoute },
): Promise<RelayResponse> {
  const startedAt = Date.now();
  const playground = path === PLAYGROUND_PATH;
  const options = loadedOptions() ?? (await getOptions());
  const sensitiveWords = promptCheckEnabled(options) ? (options.SensitiveWords as string) : null;
  // Authenticate before parsing: an unauthenticated caller learns nothing about body rules.
  let caller: RelayCaller;
  let body: ParsedBody;
  let call: InboundCall | null = null;
  if (playground) {
    const parsed = parseBody(req, mode, defaultModel, sensitiveWords);
    body = parsed instanceof Promise ? await parsed : parsed;
    caller = await authenticateSession(req, typeof body.json?.group === "string" ? body.json.group : undefined);
  } else {
    // In the steady state the key, the routing table, the options and the ledger are all in
    // memory: each is taken without an await, which would cost a turn of the microtask queue.
    const authenticated = keyCaller(req);
    caller = authenticated instanceof Promise ? await authenticated : authenticated;
    if (inbound) {
      // Another caller protocol: read for what routing, pricing and the hold need; its body is
      // decoded into the canonical chat completions one only if an attempt converts it.
      const read = readInbound(req, inbound.protocol, inbound.route, requestId);
      call = read.call;
      const json = read.json;
      body = {
        json,
        model: requestModel(json, defaultModel),
        stream: json.stream === true,
        contentType: "application/json",
        reserveTokens: read.reserveTokens,
      };
    } else {
      const parsed = parseBody(req, mode, defaultModel, sensitiveWords);
      body = parsed instanceof Promise ? await parsed : parsed;
    }
  }
  // Per-user request limits (lib/relay/call/rate-limit.ts), once the user is known and before any
  // check, so failures count too. Off by default: then one boolean read.
  const countOutcome = options.ModelRequestRateLimitEnabled && !playground ? await admitRequest(options, caller) : null;

  // After authentication (the playground parses first, for its group), before any reservation.
  // Another protocol's call: its canonical body is checked when an attempt converts it
  // (attempts.ts); the prompt check reads the caller's own text.
  if (!call) checkBody(mode, body);
  checkModelAllowed(caller, body.model);
  if (call) checkCallerPromptWords(sensitiveWords, call.info.request);
  else checkPromptWords(sensitiveWords, body);

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
    throw noChannelError(caller.group, body.model);
  }

  const { result: priced, content: logContent } = priceFor(options, body.model, caller.group);
  if (!priced.ok) throw new RelayError(priced.error.status, priced.error.message, { code: priced.error.code });
  const pricing = priced.pricing;

  const promptEstimate = reserveTokens(mode, body, req);
  const reserveAmount = reserveFor(mode, pricing, body, promptEstimate, options);
  // Key, user, group and model limits (lib/limits): before the ledger, so a refusal moves no quota.
  const limits = playground ? null : admitLimits(options, caller, body, promptEstimate, reserveAmount);
  const admitted = limits instanceof Promise ? await limits : limits;
  const ledger = readyLedger() ?? (await getLedger());
  let reservation: Reservation;
  try {
    const owner = { userId: caller.user.id, tokenId: caller.key && !caller.key.unlimited ? caller.key.id : 0 };
    const amount = BigInt(reserveAmount);
    reservation = ledger.tryReserve(owner, amount) ?? (await ledger.reserve(owner, amount, caller.user.quotaHint));
  } catch (error) {
    admitted?.release(0, 0);
    if (isQuotaShortfall(error)) throw withLimitHeaders(await shortfallRefusal(caller, error.who, reserveAmount), admitted);
    throw error;
  }

  const ctx = new CallContext(req, requestId, mode, caller, body, pricing, logContent, options, reservation, startedAt, call);
  ctx.limits = admitted;
  try {
    const response = await attemptChannels(ctx, table);
    countOutcome?.(response.status);
    if (admitted?.headers) Object.assign(response.headers, admitted.headers);
    return response;
  } catch (error) {
    await settleFailure(ctx, undefined, error instanceof RelayError ? error.status : 500);
    throw settledError(withLimitHeaders(error, admitted));
  }
}

/** The call's limits admission; null (no store asked) when no limit applies. */
function admitLimits(options: OptionValues, caller: RelayCaller, body: ParsedBody, promptEstimate: number, reserveAmount: number) {
  try {
    const admitted = admitCall(
      options,
      { key: caller.key, userId: caller.user.id, group: caller.group },
      body.model,
      tokenEstimate(body.json, promptEstimate),
      reserveAmount,
    );
    return admitted instanceof Promise ? admitted.catch(limitError) : admitted;
  } catch (error) {
    return limitError(error);
  }
}

/** A limit's refusal as the relay's 429. */
function limitError(error: unknown): never {
  if (!(error instanceof LimitRefusal)) throw error;
  throw new RelayError(429, error.message, { code: "rate_limit_exceeded", headers: error.headers });
}

/** A RelayError thrown after the call's settlement, marked so (SettledCallError). */
function settledError(error: unknown): unknown {
  if (!(error instanceof RelayError) || error instanceof SettledCallError) return error;
  return new SettledCallError(error.status, error.message, {
    type: error.type,
    code: error.code,
    param: error.param,
    local: error.local,
    headers: error.headers ?? undefined,
  });
}

/** A limited call's error answer carries its x-ratelimit-* headers too. */
function withLimitHeaders(error: unknown, admitted: CallLimits | null): unknown {
  if (!admitted?.headers || !(error instanceof RelayError)) return error;
  return new RelayError(error.status, error.message, {
    type: error.type,
    code: error.code,
    param: error.param,
    local: error.local,
    headers: { ...admitted.headers, ...error.headers },
  });
}
