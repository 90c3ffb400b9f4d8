// The server's own log (not the usage log in the database): one JSON line per event on stdout,
// through pino. Every process has one logger (a processSingleton: Next's bundles and the server
// bundle share it), with the instance id, the pid and the process's role on every line; LOG_LEVEL
// sets the least severe line printed. Lines are written asynchronously and gathered (up to 8 KiB or
// 100 ms), so the relay's hot path never waits for stdout; flushLog() writes what is buffered
// before a process exits.
// What the lines hold is in docs/logs.md ("Server log lines").
import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import pino, { type Logger } from "pino";
import { env } from "@/lib/env";
import { hideSecrets } from "@/lib/net/mask";
import { processSingleton } from "@/lib/singleton";

/**
 * This instance's id: the primary of `npm start` hands its own to the console and the relay
 * workers (QIAO_INSTANCE_ID), so every process of one instance logs the same one.
 */
export const instanceId: string = processSingleton("instanceId", () => env.QIAO_INSTANCE_ID || randomBytes(8).toString("hex"));

/** "console" and "relay" for the children of `npm start`; "primary" for it, or any other process. */
const role = env.QIAO_ROLE || (cluster.isWorker ? "relay" : "primary");

/**
 * Defence in depth: credentials are never logged on purpose, but a request's headers logged whole
 * would carry them. Paths into an object passed to the logger; no wildcard first, which would run
 * a check on every field of every line (the relay's call line included).
 */
const REDACTED_PATHS = [
  "password",
  "key",
  ...["headers", "req.headers", "request.headers"].flatMap((at) =>
    ["authorization", "cookie", "set-cookie", "x-api-key", "x-goog-api-key", "mj-api-secret", "proxy-authorization"].map(
      (name) => `${at}["${name}"]`,
    ),
  ),
];

/** An error's message and stack with any credential shape masked (an upstream's text can echo a key). */
function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === "string" ? hideSecrets(error) : error;
  const out = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  if (typeof out.message === "string") out.message = hideSecrets(out.message);
  if (typeof out.stack === "string") out.stack = hideSecrets(out.stack);
  return out;
}

/** Buffered log bytes that make a write (below sonic-boom's largest write, 16 KiB). */
const LOG_BUFFER_BYTES = 8192;
/** The longest a line waits in the buffer, in ms. */
const LOG_FLUSH_MS = 100;

function makeLogger() {
  // Asynchronous and gathered: lines wait in a buffer until it holds LOG_BUFFER_BYTES or
  // LOG_FLUSH_MS have passed, then go out in one write from libuv's thread pool. One write per
  // line cost a relay call at low concurrency about half its worker time on a slow box: the
  // pool thread's wake-up, its write and the event loop's wake-up after it (bench/README, "The
  // server log's writes"). pino also flushes the buffer synchronously when the process exits.
  // Lines go in as bytes: gathering text, sonic-boom measures its whole buffer again on every line
  // (a copy of up to 8 KiB each time); as bytes it keeps a list and joins it once per write.
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: "buffer",
  });
  // sonic-boom's types know only its text mode's write.
  const bytesOut = destination as unknown as { write(chunk: Buffer): boolean };
  const asBytes = { write: (line: string) => bytesOut.write(Buffer.from(line)) };
  const logger = pino(
    {
      level: env.LOG_LEVEL,
      base: { pid: process.pid, instance: instanceId, role },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    },
    asBytes,
  );
  return { logger, destination, asBytes };
}

const output = processSingleton("logger", makeLogger);

export const logger: Logger = output.logger;

/** A logger whose lines say which part of the server wrote them (`component`). */
export function componentLogger(component: string): Logger {
  return logger.child({ component });
}

/** Writes the buffered lines now: before a deliberate process.exit. */
export function flushLog(): void {
  try {
    output.destination.flushSync();
  } catch {
    // stdout is gone: nothing more can be written anyway
  }
}

/**
 * What follows the time in every line of `component`'s logger, as pino writes it: for the one line
 * written by hand on the relay's hot path (lib/relay/call/call-log.ts), in the same shape.
 */
export function lineFields(component: string): string {
  return `,"pid":${process.pid},"instance":${JSON.stringify(instanceId)},"role":${JSON.stringify(role)},"component":${JSON.stringify(component)}`;
}

/** Writes one whole line (ending in a newline) to the log's destination, beside pino's own lines. */
export function writeLine(line: string): void {
  output.asBytes.write(line);
}
