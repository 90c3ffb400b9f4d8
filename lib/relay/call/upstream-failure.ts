// A failed attempt on one channel: the upstream's error with the channel's status mapping
// applied and its key hidden, whether another channel may be tried, and the auto-disable of a
// dead channel. attempts.ts decides what to do with it; settle.ts logs the last one.
import { setChannelStatus } from "@/lib/channels/routing";
import type { CallContext } from "@/lib/relay/call/call-context";
import { applyStatusCodeMapping, shouldDisableChannel, shouldRetry, UPSTREAM_ERROR_TYPE, type UpstreamError } from "@/lib/relay/errors";
import { hideSecrets } from "@/lib/net/mask";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { ChosenKey } from "@/lib/relay/memory/channel-keys";
import { disableChannelKey } from "@/lib/channels/key-state";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

export type Failure = {
  status: number;
  error: UpstreamError;
  retriable: boolean;
  /** The upstream's own `retry-after`, in seconds, when it sent one (its 429 or 529). */
  retryAfter?: string;
  /** The upstream refused the key (shouldDisableChannel): another key of a multi-key channel may serve. */
  keyFault?: boolean;
};

/**
 * A `retry-after` header as seconds: its delay-seconds form as is, an HTTP date as the seconds
 * left until it; undefined when absent or unreadable (the answer then gets the default).
 */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return String(Number(trimmed));
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : String(Math.max(0, Math.ceil((at - now) / 1000)));
}

/**
 * A 200 this endpoint never produces (an HTML page, a JSON endpoint answering text or nothing):
 * a bad gateway, not content to relay.
 */
export function unexpectedAnswer(contentType: string): UpstreamError {
  const shown = contentType.split(";")[0]!.trim().slice(0, 100) || "none";
  return {
    status: 502,
    message: `上游的应答不是该接口能返回的内容 (content-type: ${shown})`,
    type: UPSTREAM_ERROR_TYPE,
    code: "bad_response_content_type",
    param: null,
  };
}

/** Maps the status, decides about retrying, and auto-disables a dead channel. */
export function failureOf(
  ctx: CallContext,
  channel: RouteChannel,
  upstreamStatus: number,
  upstreamError: UpstreamError,
  retryAfterHeader?: string | string[],
): Failure {
  const status = applyStatusCodeMapping(upstreamStatus, channel.config.status_code_mapping);
  // An upstream may echo the channel's key; the reason and admin_info reach admins below root.
  const error = { ...upstreamError, message: hideSecrets(upstreamError.message, channel.row.key) };
  const keyFault = shouldDisableChannel(upstreamStatus, error, channel.row.type);
  if (keyFault && ctx.options.AutomaticDisableChannelEnabled && channel.config.auto_ban) {
    const reason = `状态码 ${upstreamStatus}：${error.message}`.slice(0, 500);
    disableDeadKey(channel, ctx.channelKey, reason);
  }
  const retriable = !ctx.req.gone && shouldRetry(status, channel.row.type, { pinned: ctx.caller.pinnedChannelId !== null });
  const retryAfter = retryAfterSeconds(retryAfterHeader);
  const failure: Failure =
    retryAfter === undefined
      ? { status, error: { ...error, status }, retriable }
      : { status, error: { ...error, status }, retriable, retryAfter };
  if (keyFault) failure.keyFault = true;
  return failure;
}

/**
 * The auto-disable: a channel of one key goes down; a multi-key channel loses only the key this
 * attempt used (lib/channels/key-state.ts), and goes down once none is left.
 */
function disableDeadKey(channel: RouteChannel, key: ChosenKey | null, reason: string): void {
  const done = key
    ? disableChannelKey(
        channel.row.id,
        key.hash,
        channel.keys!.map((k) => k.hash),
        reason,
      )
    : setChannelStatus(channel.row.id, 3, reason);
  void done.catch((err) => log.error({ err, channelId: channel.row.id }, "auto-disable failed"));
}
