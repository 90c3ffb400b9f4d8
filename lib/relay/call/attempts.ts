// The attempt loop: pick a channel for the call (or the key's pinned one; a session's sticky one
// first, lib/relay/memory/session-sticky.ts), build the adapter's upstream request, send it, and
// on a retriable failure try the next channel, until an answer starts reaching the client
// (stream-response.ts, whole-response.ts) or the retries run out (the last failure that was not an
// overload, else the last, is settled and answered).
import type { CallContext } from "@/lib/relay/call/call-context";
import {
  describeUpstreamNetworkError,
  isOverloaded,
  noChannelError,
  parseUpstreamError,
  RelayError,
  UPSTREAM_ERROR_TYPE,
} from "@/lib/relay/errors";
import { errorResponse, type RelayResponse } from "@/lib/relay/http";
import { PLAYGROUND_PATH, OPENAI_PATHS } from "@/lib/relay/endpoints";
import { type BuildRequestInput, getProvider, relayRefusal, type UpstreamRequest } from "@/lib/relay/providers";
import { resolveUpstreamModel } from "@/lib/relay/memory/channel";
import { openExchange } from "@/lib/relay/upstream";
import { agentForChannel } from "@/lib/relay/memory/runtime";
import { pickChannel, type routingTable, type RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import { type ChosenKey, pickKey } from "@/lib/relay/memory/channel-keys";
import { forgetChannel, rememberChannel, sessionOf, stickyChannelId } from "@/lib/relay/memory/session-sticky";
import { isMarkupType } from "@/lib/relay/openai/answer-type";
import { maskSensitiveText } from "@/lib/net/mask";
import { settleFailure } from "@/lib/relay/call/settle";
import { streamResponse } from "@/lib/relay/call/stream-response";
import { type Failure, failureOf, unexpectedAnswer } from "@/lib/relay/call/upstream-failure";
import { wholeResponse } from "@/lib/relay/call/whole-response";
import { checkRequestBody } from "@/lib/relay/request/request-rules";
import { answerStarted, attemptFailed, attemptSent, attemptThrew, keyAllows, routingStarts } from "@/lib/relay/routing/attempt";
import { strategyOf } from "@/lib/relay/routing/strategy";
import { recordUpstreamError } from "@/lib/metrics/relay";

/** An error answer is read up to this size (its message is all we keep). */
const ERROR_BODY_LIMIT = 1024 * 1024;

export async function attemptChannels(ctx: CallContext, table: Awaited<ReturnType<typeof routingTable>>): Promise<RelayResponse> {
  const retryTimes = Math.max(0, Number(ctx.options.RetryTimes) || 0);
  const tried = new Set<number>();
  const session = sessionOf(ctx);
  const stickyId = session ? stickyChannelId(session) : null;
  if (session) ctx.session = session.tag;
  let last: Failure | null = null;
  // The failure answered when not every attempt was overloaded: an overloaded answer (529, or
  // 429 saturation) tells agents to come back to a model that another channel failed for good.
  let lastNotOverloaded: Failure | null = null;
  routingStarts(ctx);
  const strategy = strategyOf(ctx.options, ctx.caller.group);
  // Multi-key channels only: the keys this request tried, and the same channel again with another key.
  let triedKeys: Set<string> | null = null;
  let again = null as { channel: RouteChannel; key: ChosenKey } | null;
  for (let attempt = 0; attempt <= retryTimes; attempt++) {
    if (attempt > 0 && ctx.req.gone) break;
    const channel: RouteChannel | null | undefined =
      again?.channel ??
      (ctx.caller.pinnedChannelId !== null
        ? attempt === 0
          ? table.byId.get(ctx.caller.pinnedChannelId)!
          : null
        : pickChannel(table, ctx.caller.group, ctx.body.model, tried, stickyId, Math.random, table.byGroupModel, strategy, ctx));
    if (!channel) break;
    tried.add(channel.row.id);
    let key: ChosenKey | null = null;
    if (channel.keys) {
      // Past open keys when another is left; a channel whose every key is open is itself open.
      const allows = keyAllows(channel);
      triedKeys ??= new Set();
      key = again?.key ?? (allows ? pickKey(channel, triedKeys, allows) : null) ?? pickKey(channel, triedKeys);
      if (!key) continue; // every key of it tried: the next channel
      triedKeys!.add(key.hash);
    }
    again = null;
    ctx.tried.push(channel.row.id);
    ctx.channelKey = key;
    const outcome = await attemptRouted(ctx, channel, key);
    if ("response" in outcome) {
      if (session) {
        ctx.sticky = channel.row.id === stickyId;
        rememberChannel(session, channel.row.id);
      }
      return outcome.response;
    }
    last = outcome.failure;
    recordUpstreamError(channel.row.id, last.status);
    if (session) forgetChannel(session, channel.row.id);
    if (!overloaded(last)) lastNotOverloaded = last;
    if (!last.retriable || ctx.caller.pinnedChannelId !== null) break;
    // A key the upstream refused (401, 403, quota): the channel's other keys may still serve.
    const next: ChosenKey | null = last.keyFault && key ? pickKey(channel, triedKeys!) : null;
    if (next) again = { channel, key: next };
  }
  if (!last) throw noChannelError(ctx.caller.group, ctx.body.model);
  const answered = lastNotOverloaded ?? last;
  // Upstream text can carry the channel's key, URL or internal hosts: users see it masked.
  const message = answered.status === 429 ? "当前分组上游负载已饱和，请稍后再试" : maskSensitiveText(answered.error.message);
  await settleFailure(ctx, answered);
  const response = errorResponse(
    answered.status,
    message,
    answered.error.type,
    answered.error.code,
    ctx.requestId,
    null,
    ctx.inbound?.protocol,
  );
  if (answered.retryAfter !== undefined && (answered.status === 429 || answered.status === 529)) {
    response.headers["retry-after"] = answered.retryAfter;
  }
  return response;
}

/** One attempt, with what routing learns from it (lib/relay/routing/attempt.ts). */
async function attemptRouted(
  ctx: CallContext,
  channel: RouteChannel,
  key: ChosenKey | null,
): Promise<{ response: RelayResponse } | { failure: Failure }> {
  attemptSent(ctx, channel, key);
  let outcome: { response: RelayResponse } | { failure: Failure };
  try {
    outcome = await attemptOnce(ctx, channel, key);
  } catch (error) {
    attemptThrew(channel, key);
    throw error;
  }
  if ("response" in outcome) answerStarted(ctx, channel, key);
  else attemptFailed(ctx, channel, outcome.failure, key);
  return outcome;
}

/** A failure that says the upstream is saturated: retry later, elsewhere or here. */
function overloaded(failure: Failure): boolean {
  return failure.status === 429 || isOverloaded(failure.status, failure.error.type, failure.error.code, failure.error.message);
}

type Built = { upstream: UpstreamRequest; upstreamModel: string };

function buildUpstream(ctx: CallContext, channel: RouteChannel, key: ChosenKey | null): Built | Promise<Built> {
  const adapter = getProvider(channel.row.type);
  if (!adapter) throw new RelayError(400, relayRefusal(channel.row.type) ?? "未知的渠道类型", { code: "invalid_api_type" });
  const upstreamModel = resolveUpstreamModel(channel.config, ctx.body.model);
  const input: BuildRequestInput = {
    // A multi-key channel's adapter sees the attempt's key; a channel of one key costs no copy.
    channel: key ? { ...channel.config, key: key.text } : channel.config,
    dispatcher: agentForChannel(channel.row, ctx.options),
    mode: ctx.mode,
    upstreamModel,
    requestModel: ctx.body.model,
    // The playground and other caller protocols send the canonical chat completions request.
    clientPath: ctx.req.path === PLAYGROUND_PATH || ctx.inbound ? OPENAI_PATHS.chat : ctx.req.path,
    clientQuery: ctx.req.query,
    body: ctx.req.body,
    contentType: ctx.body.contentType,
    stream: ctx.body.stream,
    json: ctx.body.json ?? undefined,
    playground: ctx.req.path === PLAYGROUND_PATH,
    converted: ctx.inbound !== null,
  };
  // A channel that speaks the caller's own protocol gets the caller's request as it came, unless
  // its builder says this call cannot pass through (null).
  const inbound = ctx.inbound;
  const native = inbound ? adapter.native?.[inbound.protocol.name] : undefined;
  let upstream = native
    ? native({
        ...input,
        body: inbound!.rawBody,
        json: inbound!.info.request,
        callerHeaders: ctx.req.headers,
        callerRoute: inbound!.info.route,
      })
    : null;
  const passedThrough = upstream !== null;
  if (upstream === null && inbound) {
    // Converted: the caller's body is decoded now (once per call), and what the decoder could not
    // convert is refused. Another channel of the model may speak the caller's protocol, so the
    // refusal lets the next channel try (the last one tried answers it).
    const canonical = inbound.canonical();
    const refusal = canonical.refusal;
    if (refusal) {
      throw new RelayError(refusal.status, refusal.message, { type: refusal.type, code: refusal.code, param: refusal.param, local: false });
    }
    // The endpoint's rules, on the body the adapter gets (a passed-through body is the vendor's to judge).
    checkRequestBody(ctx.mode, canonical.json);
    upstream = adapter.buildRequest({ ...input, body: canonical.bytes, json: canonical.json });
  } else if (upstream === null) {
    upstream = adapter.buildRequest(input);
  }
  // Only adapters that fetch a token first answer with a promise; the rest stay synchronous.
  if (upstream instanceof Promise) {
    return upstream.then((u) => {
      noteDropped(ctx, u, passedThrough);
      return { upstream: u, upstreamModel };
    });
  }
  noteDropped(ctx, upstream, passedThrough);
  return { upstream, upstreamModel };
}

/**
 * What this attempt's request left out: nothing when the caller's body passed through, else the
 * decoder's drops and the adapter's own (each attempt sets it: the answering one is logged).
 */
function noteDropped(ctx: CallContext, upstream: UpstreamRequest, passedThrough: boolean): void {
  const fromCaller = passedThrough ? undefined : ctx.inbound?.dropped;
  const fromAdapter = upstream.dropped;
  if (!fromCaller?.length) ctx.dropped = fromAdapter ?? [];
  else if (!fromAdapter?.length) ctx.dropped = fromCaller;
  else ctx.dropped = [...new Set([...fromCaller, ...fromAdapter])];
}

async function attemptOnce(
  ctx: CallContext,
  channel: RouteChannel,
  key: ChosenKey | null,
): Promise<{ response: RelayResponse } | { failure: Failure }> {
  let built: Built;
  try {
    const pending = buildUpstream(ctx, channel, key);
    built = pending instanceof Promise ? await pending : pending;
  } catch (error) {
    // A channel's own fault (a misconfiguration, an access token its vendor would not issue:
    // RelayError with local false) lets the next channel try; the request's fault does not.
    if (error instanceof RelayError)
      return {
        failure: {
          status: error.status,
          error: { status: error.status, message: error.message, type: error.type, code: error.code, param: error.param },
          retriable: !error.local && !ctx.req.gone,
        },
      };
    throw error;
  }
  const { upstream, upstreamModel } = built;
  let headers = upstream.headers;
  // Providers name it "Accept" (baseHeaders); one that sets none still asks for the stream.
  if (ctx.body.stream && headers.accept === undefined && headers.Accept === undefined)
    headers = { ...headers, accept: "text/event-stream" };
  const exchange = openExchange(agentForChannel(channel.row, ctx.options), upstream, headers);
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
    return {
      failure: failureOf(ctx, channel, exchange.status, parseUpstreamError(exchange.status, text), exchange.headers["retry-after"]),
    };
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
