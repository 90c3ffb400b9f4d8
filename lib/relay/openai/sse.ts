// Server-sent events: the ONLY module that writes `data:` lines, `[DONE]` and SSE comments, and
// the one place upstream SSE is parsed (eventsource-parser: handles \r\n and \r line ends, lines
// split across chunks, multi-line data, comments, a UTF-8 BOM). OpenAIStreamRelay splits plain
// `data:` events from the bytes itself and hands this reader everything else.
import { createParser, type EventSourceParser } from "eventsource-parser";

/**
 * Response headers of every relayed stream. `X-Accel-Buffering: no` stops nginx from buffering;
 * SSE must not be compressed (a gzip layer holds bytes back).
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
});

const encoder = new TextEncoder();

export const SSE_DONE_TEXT = "data: [DONE]\n\n";
/** Keep-alive comment; clients ignore it, proxies see traffic. */
export const SSE_PING_TEXT = ": ping\n\n";
export const SSE_PING: Uint8Array = encoder.encode(SSE_PING_TEXT);

/**
 * One `data:` event carrying a JSON text. Raw CR/LF cannot occur inside JSON strings, so any line
 * break in the payload is insignificant whitespace (an upstream's pretty-printed JSON) and is
 * dropped: the event stays on one line, which naive line-based clients require.
 */
export function sseJson(json: string): string {
  if (json.indexOf("\n") !== -1 || json.indexOf("\r") !== -1) json = json.replace(/[\r\n]+/g, "");
  return `data: ${json}\n\n`;
}

/** A `data:` event with arbitrary text; line breaks become additional `data:` lines per the spec. */
export function sseText(text: string): string {
  if (text.indexOf("\n") === -1 && text.indexOf("\r") === -1) return `data: ${text}\n\n`;
  return `${text
    .split(/\r\n|\r|\n/)
    .map((l) => `data: ${l}`)
    .join("\n")}\n\n`;
}

/** A named event (`event: x` + data), for protocols that use them (Anthropic, Responses API). */
export function sseNamedEvent(event: string, json: string): string {
  return `event: ${event.replace(/[\r\n]/g, "")}\n${sseJson(json)}`;
}

/** An SSE comment line (`: text`), e.g. ": ping" or ": retrying". */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

/**
 * Where a reader of a stream body that is not SSE (providers/types.ts, StreamFraming) hands what it
 * read: each event's data as it would stand after `data: ` (a JSON text), or text that turned out
 * to be SSE after all. The stream relay implements it and writes the `data:` lines itself.
 */
export interface EventSink {
  /** One event's data (JSON text), with no SSE framing. */
  event(data: string): void;
  /** Text that is SSE already, read as the upstream's own events. */
  sse(text: string): void;
}

export function encodeSse(text: string): Uint8Array {
  return Buffer.from(text, "utf8");
}

// ---------------------------------------------------------------------------------------------
// Parsing upstream SSE
// ---------------------------------------------------------------------------------------------

export interface SseEvent {
  /** `event:` field, undefined when absent. */
  event: string | undefined;
  data: string;
  id: string | undefined;
}

export interface SseReaderOptions {
  onEvent(event: SseEvent): void;
  onComment?(comment: string): void;
  /**
   * Called once if the upstream buffers more than `maxBufferChars` without completing an event
   * (a hostile or broken upstream); the reader then ignores further input.
   */
  onOverflow?(): void;
  /** Default 16 Mi characters. */
  maxBufferChars?: number;
}

/** Incremental SSE reader fed with raw upstream bytes (or text) in arbitrary chunks. */
export class SseReader {
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private broken = false;

  constructor(opts: SseReaderOptions) {
    this.parser = createParser({
      onEvent: (e) => opts.onEvent({ event: e.event, data: e.data, id: e.id }),
      onComment: opts.onComment,
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") {
          this.broken = true;
          opts.onOverflow?.();
        }
        // Unknown fields and invalid `retry` values are ignored, as browsers do.
      },
      maxBufferSize: opts.maxBufferChars ?? 16 * 1024 * 1024,
    });
  }

  feed(chunk: Uint8Array | string): void {
    if (this.broken) return;
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (text !== "") this.parser.feed(text);
  }

  /** End of input: dispatch a final event even if the upstream omitted the closing blank line. */
  end(): void {
    if (this.broken) return;
    const rest = this.decoder.decode();
    if (rest !== "") this.parser.feed(rest);
    this.parser.feed("\n\n");
    this.parser.reset();
  }
}

/**
 * Some upstreams separate events with a single newline, which per the SSE spec makes one event
 * with multi-line data ("{…}\n{…}"). Return the payloads such data holds: the data itself when it
 * is one JSON text, else each line (the way new-api's line scanner read them).
 */
export function splitDataLines(data: string): string[] {
  if (data.indexOf("\n") === -1) return [data];
  try {
    JSON.parse(data);
    return [data];
  } catch {
    return data.split("\n").filter((l) => l.trim() !== "");
  }
}
