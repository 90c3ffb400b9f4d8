// The relay's server log line per call (docs/logs.md, "Server log lines"): one `relay call` line at
// info when a call ends, answered, failed or left by its client. Written where the call is settled
// (settle.ts) and, for the answers that never reach a settlement, by the pipeline (pipeline.ts).
import { componentLogger } from "@/lib/log";
import type { CallContext } from "@/lib/relay/call/call-context";

const log = componentLogger("relay");

/** Read once: with LOG_LEVEL above info, a call pays one boolean test for its line. */
export const callLogOn = log.isLevelEnabled("info");

/** How a settled call ended, beside its status: a stream's end reason, or the client leaving. */
export type CallEnd = { frt?: number; clientGone?: boolean; streamEnd?: string; errorType?: string };

/** The line of a call that was priced and held quota: who, which channel and model, how it ended. */
export function logCallEnd(ctx: CallContext, status: number, channelId: number, stream: boolean, end: CallEnd): void {
  const ms = Date.now() - ctx.startedAt;
  log.info(
    {
      requestId: ctx.requestId,
      userId: ctx.caller.user.id,
      tokenId: ctx.caller.key?.id ?? 0,
      channelId,
      model: ctx.body.model,
      status,
      ms,
      frtMs: end.frt,
      stream,
      path: ctx.req.path,
      clientGone: end.clientGone,
      streamEnd: end.streamEnd,
      error: end.errorType,
    },
    "relay call",
  );
}

/** The line of an answer given before any quota was held: a refusal, a model list, a task's answer. */
export function logAnswer(requestId: string, path: string, status: number, startedAt: number, errorCode?: string | null): void {
  log.info({ requestId, status, ms: Date.now() - startedAt, path, error: errorCode ?? undefined }, "relay call");
}
