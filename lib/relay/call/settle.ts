// Settlement: a finished call is charged exactly what it used (the reservation is settled
// against the ledger) and logged; a failed one gets its reservation back and an error row. Every
// relay log row is built by logRow below.
import { usageBucket } from "@/lib/data/buckets";
import { breakdownJsonOpen, clampUsage, type QuotaResult } from "@/lib/billing/price";
import { boundUsage, completionBound, usageAnomaly } from "@/lib/billing/usage-bounds";
import { noteCharge } from "@/lib/billing/quota-remind";
import type { LogRow } from "@/lib/logs/insert";
import { LOG_TYPE } from "@/lib/logs/write";
import { type CallContext, PromptFallback } from "@/lib/relay/call/call-context";
import { hideSecrets, maskSensitiveText } from "@/lib/net/mask";
import type { StreamEndReason } from "@/lib/relay/openai/stream-relay";
import { getLedger, readyLedger } from "@/lib/relay/memory/runtime";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { Usage } from "@/lib/billing/usage";
import type { Failure } from "@/lib/relay/call/upstream-failure";
import { answerEnded } from "@/lib/relay/routing/attempt";
import { recordAnswered, recordFailed } from "@/lib/metrics/relay";
import { callLogOn, logCallEnd } from "@/lib/relay/call/call-log";
import { componentLogger } from "@/lib/log";

const relayLog = componentLogger("relay");

/** What a settled request adds to its log row's `other` beside the price. */
export type SettleExtra = {
  /** Whether the upstream reported usage (else it was counted locally). */
  upstreamUsage: boolean;
  /** Milliseconds to the first token (streams); the whole answer's time otherwise. */
  frt?: number;
  clientGone?: boolean;
  streamEnd?: StreamEndReason;
};

/**
 * The usage a call is billed for: the upstream's (or the local count), made consistent by
 * clampUsage (a number beyond any context, or negative, is replaced by the local count), then held
 * within what the request could have used (lib/billing/usage-bounds.ts). When either changed a
 * count of the upstream's (`fromUpstream`), the call's `usageAnomaly` keeps its raw numbers for
 * the log row; a local count (no upstream usage) is bounded the same way, silently.
 */
export function billableUsage(ctx: CallContext, upstreamModel: string, raw: Usage, fromUpstream: boolean): Usage {
  const clamped = clampUsage(raw, { fallback: new PromptFallback(ctx) });
  const completionLimit = completionBound(ctx.body.json, upstreamModel);
  const bounded = boundUsage(clamped.usage, completionLimit, ctx, raw);
  // The usual call: sane numbers within the bounds, nothing allocated beyond clampUsage's usage.
  if (!bounded && !clamped.clamped) return clamped.usage;
  const { flags } = clamped;
  if (!bounded && !flags.absurd.length && !flags.negative.length && !flags.nonNumeric.length) return clamped.usage;
  const billed = bounded ? bounded.usage : clamped.usage;
  if (!fromUpstream) return billed;
  ctx.usageAnomaly = bounded ? bounded.anomaly : usageAnomaly(raw, completionLimit);
  relayLog.warn(
    {
      requestId: ctx.requestId,
      channelId: ctx.tried[ctx.tried.length - 1] ?? 0,
      reported: { prompt: raw.prompt_tokens, completion: raw.completion_tokens },
      billed: { prompt: billed.prompt_tokens, completion: billed.completion_tokens },
    },
    "usage anomaly",
  );
  return billed;
}

/**
 * The consume log's `other` JSON (new-api's keys): the price breakdown, `upstream_usage`,
 * `frt`, `client_gone` and `stream_end` for streams, `dropped` (what a converted request left out),
 * `session` and `sticky` (a session's hash, and whether its sticky channel answered), `admin_info.use_channel`, `request_path`,
 * and the model mapping when there was one. Written out rather than built as an object for
 * JSON.stringify, which costs ~0.1 µs per key on this Node.
 */
function otherJson(ctx: CallContext, quota: QuotaResult, upstreamModel: string, extra: SettleExtra): string {
  let out = breakdownJsonOpen(ctx.pricing, quota.breakdown);
  out += `,"upstream_usage":${extra.upstreamUsage ? "true" : "false"}`;
  if (extra.clientGone) out += `,"client_gone":true`;
  if (extra.streamEnd !== undefined) out += `,"stream_end":${JSON.stringify(extra.streamEnd)}`;
  if (ctx.usageAnomaly) out += `,"usage_anomaly":${JSON.stringify(ctx.usageAnomaly)}`;
  out += `,"frt":${extra.frt ?? Date.now() - ctx.startedAt}`;
  out += `,"admin_info":{"use_channel":[${ctx.tried.map((id) => `"${id}"`).join(",")}]${multiKeyInfo(ctx)}${breakerAdminJson(ctx)}}`;
  out += `,"request_path":${JSON.stringify(ctx.req.path)}`;
  if (ctx.dropped.length > 0) out += `,"dropped":${JSON.stringify(ctx.dropped)}`;
  if (ctx.session !== null) out += `,"session":"${ctx.session}"${ctx.sticky ? `,"sticky":true` : ""}`;
  if (upstreamModel !== ctx.body.model) out += `,"is_model_mapped":true,"upstream_model_name":${JSON.stringify(upstreamModel)}`;
  return `${out}}`;
}

/** new-api's admin_info fields for a multi-key channel's key: its place in the key field, never the key. */
function multiKeyInfo(ctx: CallContext): string {
  return ctx.channelKey ? `,"is_multi_key":true,"multi_key_index":${ctx.channelKey.index}` : "";
}

export async function settle(
  ctx: CallContext,
  channel: RouteChannel,
  upstreamModel: string,
  usage: Usage,
  quota: QuotaResult,
  isStream: boolean,
  extra: SettleExtra,
) {
  ctx.limits?.release(usage.prompt_tokens + usage.completion_tokens, quota.quota);
  answerEnded(ctx, extra.frt);
  ctx.measured = true;
  recordAnswered(ctx.body.model, channel.row.id, ctx.startedAt, isStream ? (extra.frt ?? -1) : -1, usage, quota.quota);
  if (callLogOn) logCallEnd(ctx, 200, channel.row.id, isStream, extra);
  const ledger = readyLedger() ?? (await getLedger());
  const log = ctx.options.LogConsumeEnabled
    ? logRow(
        ctx,
        LOG_TYPE.consume,
        ctx.logContent,
        usage.prompt_tokens,
        usage.completion_tokens,
        isStream,
        channel.row.id,
        otherJson(ctx, quota, upstreamModel, extra),
      )
    : null;
  const charged = await ledger.settle(ctx.reservation, BigInt(quota.quota), {
    userId: ctx.caller.user.id,
    tokenId: ctx.caller.key?.id ?? 0,
    channelId: channel.row.id,
    channelKeyHash: ctx.channelKey ? ctx.channelKey.hash : "",
    modelName: ctx.body.model,
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    log,
    bucket: usageBucket(ctx.options, ctx.caller.user.username, Math.floor(Date.now() / 1000)),
  });
  noteCharge(ctx.caller.user, charged, ctx.options.QuotaRemindThreshold, ledger);
}

/**
 * The admin part's circuit-breaker notes: `breaker_opened` (the channels this call's failures
 * opened) and `breaker_skipped` (how many open channels its choice passed over); nothing when neither.
 */
function breakerAdminJson(ctx: CallContext): string {
  let out = "";
  if (ctx.breakerOpened) out += `,"breaker_opened":[${ctx.breakerOpened.join(",")}]`;
  if (ctx.breakerSkipped) out += `,"breaker_skipped":${ctx.breakerSkipped.size}`;
  return out;
}

/**
 * The error row's admin part: the channels tried, the breaker notes and, when masking changed
 * what users see in `content`, the upstream's full text (GET /api/log shows admin_info,
 * /api/log/self drops it).
 */
function errorAdminInfo(ctx: CallContext, full: string, shown: string): Record<string, unknown> {
  const info: Record<string, unknown> = { use_channel: ctx.tried.map(String) };
  if (ctx.breakerOpened) info.breaker_opened = ctx.breakerOpened;
  if (ctx.breakerSkipped) info.breaker_skipped = ctx.breakerSkipped.size;
  if (shown !== full) info.error_message = full.slice(0, ERROR_LOG_CHARS);
  if (ctx.channelKey) {
    info.is_multi_key = true;
    info.multi_key_index = ctx.channelKey.index;
  }
  return info;
}

/** An error row keeps this much of the message. */
const ERROR_LOG_CHARS = 1000;

/**
 * Returns the whole reservation (the request failed and used nothing) and logs the error.
 * `status`: the answer's, when there is no `failure` (the call threw).
 */
export async function settleFailure(ctx: CallContext, failure?: Failure, status = 500) {
  // Every end passes here or through settle(): the limits are released once, whichever comes first.
  ctx.limits?.release(0, 0);
  // Once per call: a settle() that threw after recording its answer ends here too.
  if (!ctx.measured) {
    ctx.measured = true;
    recordFailed(ctx.body.model, ctx.tried[ctx.tried.length - 1] ?? 0, ctx.startedAt, failure ? failure.status : status);
    if (callLogOn)
      logCallEnd(ctx, failure ? failure.status : status, ctx.tried[ctx.tried.length - 1] ?? 0, ctx.body.stream, {
        errorType: failure ? failure.error.type : undefined,
      });
  }
  if (ctx.reservation.settled) return;
  const ledger = await getLedger();
  // Admins read `full`: no credential of any vendor, whichever path produced the failure.
  const full = hideSecrets(failure?.error.message ?? "");
  const shown = maskSensitiveText(full);
  const log =
    failure && ctx.options.LogConsumeEnabled
      ? logRow(
          ctx,
          LOG_TYPE.error,
          shown.slice(0, ERROR_LOG_CHARS),
          0,
          0,
          ctx.body.stream,
          ctx.tried[ctx.tried.length - 1] ?? 0,
          JSON.stringify({
            status_code: failure.status,
            error_type: failure.error.type,
            error_code: failure.error.code,
            admin_info: errorAdminInfo(ctx, full, shown),
            request_path: ctx.req.path,
          }),
        )
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

/**
 * The one builder of the relay's log rows (consume and error; a stream's client-gone or
 * interrupted end is a consume row whose `other` says so): the caller's fields, the model, the
 * time taken, and what the caller passes. `quota` is filled in by the ledger when it charges.
 */
function logRow(
  ctx: CallContext,
  type: number,
  content: string,
  promptTokens: number,
  completionTokens: number,
  isStream: boolean,
  channelId: number,
  other: string,
): LogRow {
  return {
    user_id: ctx.caller.user.id,
    created_at: Math.floor(Date.now() / 1000),
    type,
    content,
    username: ctx.caller.user.username,
    token_name: ctx.caller.key ? ctx.caller.key.name : `playground-${ctx.caller.group}`,
    model_name: ctx.body.model,
    quota: 0n,
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    use_time: Math.max(0, Math.round((Date.now() - ctx.startedAt) / 1000)),
    is_stream: isStream,
    channel_id: channelId,
    token_id: ctx.caller.key?.id ?? 0,
    group: ctx.caller.group,
    request_id: ctx.requestId,
    other,
  };
}
