// A whole (non-streamed) answer: read the upstream's body, check it is what the endpoint
// produces, convert it for adapters that need it, read its usage, price it, and answer; the
// settlement (settle.ts) follows right after the answer is written.
import { isObj } from "@/lib/obj";
import { quotaForImages, quotaForSpeech, quotaForTokens, type QuotaResult } from "@/lib/billing/price";
import { type CallContext, UsageContext } from "@/lib/relay/call/call-context";
import { describeUpstreamNetworkError, errorFromJson, UPSTREAM_ERROR_TYPE } from "@/lib/relay/errors";
import type { RelayResponse } from "@/lib/relay/http";
import type { UpstreamRequest } from "@/lib/relay/providers";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { Exchange } from "@/lib/relay/upstream";
import { answerContentType, JSON_TYPE, looksLikeJson } from "@/lib/relay/openai/answer-type";
import { extractResponseUsage } from "@/lib/relay/openai/whole-usage";
import { openAIUsage } from "@/lib/relay/openai/usage";
import { imageParams } from "@/lib/relay/call/pricing";
import { billableUsage, settle, settleFailure } from "@/lib/relay/call/settle";
import { type Failure, failureOf, unexpectedAnswer } from "@/lib/relay/call/upstream-failure";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

/** A whole (non-streamed) answer larger than this is refused: base64 images and audio fit well. */
const WHOLE_BODY_LIMIT = 256 * 1024 * 1024;

const decoder = new TextDecoder();

function parseOrNull(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
}

const PASS_HEADERS = ["content-type", "x-request-id", "openai-processing-ms", "openai-model", "openai-organization"];

export async function wholeResponse(
  ctx: CallContext,
  channel: RouteChannel,
  upstream: UpstreamRequest,
  upstreamModel: string,
  exchange: Exchange,
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
    // A vendor's 200 that is an error in its own shape, which its converter wrote as OpenAI's.
    if (extracted.error) return { failure: failureOf(ctx, channel, 500, extracted.error) };
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
    usage = billableUsage(ctx, upstreamModel, usage, extracted.sawUpstreamUsage);
    quota = quotaForTokens(ctx.pricing, usage);
  }
  if (ctx.inbound && upstream.passthrough) {
    // The channel speaks the caller's protocol: its answer goes as it came (read only for usage).
    body = raw;
    outType = JSON_TYPE;
  } else if (ctx.inbound) {
    // Another caller protocol: the canonical answer, encoded back into the caller's, with the
    // usage billed (such protocols report usage in every answer, a local count included).
    const answer = isObj(extracted.json) ? extracted.json : parseOrNull(typeof body === "string" ? Buffer.from(body) : body);
    if (!isObj(answer)) return { failure: failureOf(ctx, channel, 502, unexpectedAnswer(upstreamType)) };
    body = ctx.inbound.encodeWhole(usage ? { ...answer, usage: openAIUsage(usage) } : answer);
    outType = JSON_TYPE;
  }
  // Settled right after the answer is written, not before: the client does not wait for the
  // bookkeeping. The reservation already covers the request, so nothing rides on the order.
  const sawUpstreamUsage = extracted.sawUpstreamUsage;
  setImmediate(() => {
    settle(ctx, channel, upstreamModel, usage, quota, false, { upstreamUsage: sawUpstreamUsage }).catch((error) => {
      log.error({ err: error, requestId: ctx.requestId }, "settle failed");
      return settleFailure(ctx);
    });
  });
  const headers: Record<string, string> = { "x-oneapi-request-id": ctx.requestId };
  for (const h of PASS_HEADERS) {
    const v = exchange.headers[h];
    if (typeof v === "string") headers[h] = v;
  }
  headers["content-type"] = outType;
  return { response: { status: 200, headers: ctx.droppedHeader(headers), body } };
}
