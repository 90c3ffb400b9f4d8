// The relay's server log line per call (docs/logs.md, "Server log lines"): one `relay call` line at
// info when a call ends, answered, failed or left by its client. Written where the call is settled
// (settle.ts) and, for the answers that never reach a settlement, by the pipeline (pipeline.ts).
import { componentLogger, lineFields, writeLine } from "@/lib/log";
import type { CallContext } from "@/lib/relay/call/call-context";

const log = componentLogger("relay");

/** Read once: with LOG_LEVEL above info, a call pays one boolean test for its line. */
export const callLogOn = log.isLevelEnabled("info");

/** How a settled call ended, beside its status: a stream's end reason, or the client leaving. */
export type CallEnd = { frt?: number; clientGone?: boolean; streamEnd?: string; errorType?: string };

/** The start of a `relay call` line up to its time: what pino writes at info. */
const HEAD = '{"level":"info","time":"';
/** After the time: the fields every line of the relay's logger carries. */
const FIELDS = `"${lineFields("relay")}`;

/**
 * The line of a call that was priced and held quota: who, which channel and model, how it ended.
 * Written by hand, in pino's shape, into the same destination: pino's own serialising (its child
 * bindings, its redaction and formatters) cost about 6 µs a line, a tenth of a relay call's
 * worker time; this costs about 1 µs. Strings a caller chose (model, path) go through JSON.stringify.
 */
export function logCallEnd(ctx: CallContext, status: number, channelId: number, stream: boolean, end: CallEnd): void {
  const ms = Date.now() - ctx.startedAt;
  let line = `${HEAD}${new Date().toISOString()}${FIELDS},"requestId":${JSON.stringify(ctx.requestId)},"userId":${ctx.caller.user.id},"tokenId":${ctx.caller.key?.id ?? 0},"channelId":${channelId},"model":${JSON.stringify(ctx.body.model ?? "")},"status":${status},"ms":${ms}`;
  if (end.frt !== undefined) line += `,"frtMs":${end.frt}`;
  line += `,"stream":${stream},"path":${JSON.stringify(ctx.req.path ?? "")}`;
  if (end.clientGone !== undefined) line += `,"clientGone":${end.clientGone}`;
  if (end.streamEnd !== undefined) line += `,"streamEnd":${JSON.stringify(end.streamEnd)}`;
  if (end.errorType !== undefined) line += `,"error":${JSON.stringify(end.errorType)}`;
  writeLine(`${line},"msg":"relay call"}\n`);
}

/** The line of an answer given before any quota was held: a refusal, a model list, a task's answer. */
export function logAnswer(requestId: string, path: string, status: number, startedAt: number, errorCode?: string | null): void {
  log.info({ requestId, status, ms: Date.now() - startedAt, path, error: errorCode ?? undefined }, "relay call");
}
