// Reading a passed-through stream for its bookkeeping only. The caller gets the upstream's own
// bytes (stream-response.ts), so the relay needs of them just what billing and the log row need:
// the usage, an error, the first token's time and how the stream ended. The stream relay
// (OpenAIStreamRelay with the channel's converter) answers all of that, but converting every
// event of a long answer into an OpenAI chunk that nobody reads costs more than relaying it.
//
// So this reader splits the bytes into events itself and hands the relay only the events that
// matter, in the order they came: everything up to the first token (so its time is exact), then
// the events that carry usage or may end the stream; an event in its vendor's framing goes to the
// relay as its name and data (OpenAIStreamRelay.event), without a second SSE reader, and the relay
// serialises nothing for the client (readOnly). The content events after the first token
// are held as bytes, unparsed, and read only when something needs their text: the local count
// when the stream ends without the vendor's usage (cut off, or a vendor that sent none), or when
// the held bytes grow past HELD_LIMIT (read then, to bound the memory a stream keeps). The relay
// therefore sees exactly the events it would have seen, and bills exactly what it would have.
//
// Which events are content, and which usage events may be read before the content held ahead of
// them, is each caller protocol's (PASSTHROUGH_EVENTS). An event of a listed type is recognised
// only in its vendor's exact framing (`event: <type>` then one `data: {"type":"<type>"…` line);
// anything else, and any stream with CR line ends, goes through the relay's full reader, as the
// protocols without a table do (Gemini's events carry no names: it is read as before).
import type { OpenAIStreamRelay } from "@/lib/relay/openai/stream-relay";
import type { StreamFraming } from "@/lib/relay/providers";

/** Held content events are read once they reach this many bytes. */
const HELD_LIMIT = 256 * 1024;

interface PassthroughEvents {
  /**
   * Events that carry only content (text, reasoning, tool calls) or nothing the relay reads: held
   * unparsed after the first token.
   */
  content: ReadonlySet<string>;
  /**
   * Events read at once that depend on no content before them (the converter reads only their
   * counts), so the content held ahead of them may stay held. Every other event first has the held
   * content read, in order, since it may end the stream (an error) or depend on what came before.
   */
  usage: ReadonlySet<string>;
}

/** Per caller protocol (InboundProtocol.name), what its stream's events are to the bookkeeping. */
const PASSTHROUGH_EVENTS: Readonly<Record<string, PassthroughEvents>> = {
  // providers/anthropic/stream.ts: message_start and message_delta carry the counts, message_stop
  // sends them as the usage chunk; the converter's content state (tool call indexes) is only
  // read by content events.
  anthropic: {
    content: new Set(["content_block_start", "content_block_delta", "content_block_stop", "ping"]),
    usage: new Set(["message_start", "message_delta", "message_stop"]),
  },
  // providers/openai-responses.ts (responsesReader, stateless): only the text deltas become
  // content; response.completed and response.incomplete carry the usage.
  "openai-responses": {
    content: new Set([
      "response.created",
      "response.in_progress",
      "response.queued",
      "response.output_item.added",
      "response.output_item.done",
      "response.content_part.added",
      "response.content_part.done",
      "response.output_text.delta",
      "response.output_text.done",
      "response.output_text.annotation.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_part.done",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_text.delta",
      "response.reasoning_text.done",
      "response.refusal.delta",
      "response.refusal.done",
    ]),
    usage: new Set(["response.completed", "response.incomplete"]),
  },
};

/** The bookkeeping a relayed stream reads, from the stream relay or from a PassthroughReader. */
export type StreamBookkeeping = Pick<
  OpenAIStreamRelay,
  | "transform"
  | "transformFramed"
  | "endFramed"
  | "finish"
  | "abort"
  | "done"
  | "endReason"
  | "error"
  | "usage"
  | "sawUpstreamUsage"
  | "firstTokenAt"
  | "firstByteAt"
>;

/**
 * The bookkeeping of a stream passed through to a caller of `protocol`: the relay itself when the
 * protocol has no table, else a PassthroughReader in front of it.
 */
export function passthroughBookkeeping(relay: OpenAIStreamRelay, protocol: string, now: () => number = Date.now): StreamBookkeeping {
  const events = PASSTHROUGH_EVENTS[protocol];
  return events ? new PassthroughReader(relay, events, now) : relay;
}

const EVENT_PREFIX = "event: ";
const DATA_PREFIX = "data: ";
const DATA_TYPE_PREFIX = 'data: {"type":"';

export class PassthroughReader implements StreamBookkeeping {
  /** False once the relay reads everything itself (CR line ends, a framed body). */
  private scanning = true;
  /** Bytes after the last complete event. */
  private tail: Buffer | null = null;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private firstByte: number | null = null;

  constructor(
    private readonly relay: OpenAIStreamRelay,
    private readonly events: PassthroughEvents,
    private readonly now: () => number,
  ) {}

  /** Reads what it must of the upstream's bytes; the caller forwards them itself, so this returns null. */
  transform(chunk: Uint8Array | string): null {
    if (this.relay.done) return null;
    if (this.firstByte === null && chunk.length > 0) this.firstByte = this.now();
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.scanning) {
      this.relay.transform(bytes);
      return null;
    }
    const buf = this.tail ? Buffer.concat([this.tail, bytes]) : bytes;
    this.tail = null;
    // latin1: one char per byte, and every byte looked for is ASCII, so offsets are byte offsets.
    const text = buf.toString("latin1");
    if (text.indexOf("\r") !== -1) {
      this.readAll();
      this.relay.transform(buf);
      return null;
    }
    let start = 0;
    for (let end = text.indexOf("\n\n", start); end !== -1; end = text.indexOf("\n\n", start)) {
      const type = this.typeOf(text, start, end);
      if (type === null) {
        // Not in the vendor's framing: the relay's SSE reader reads it, after what was held.
        this.readHeld();
        this.relay.transform(buf.subarray(start, end + 2));
      } else if (this.relay.firstTokenAt !== null && this.events.content.has(type)) {
        this.hold(buf.subarray(start, end + 2));
      } else {
        if (!this.events.usage.has(type)) this.readHeld();
        // Its one data line, handed on as the SSE reader would (without reading the framing again).
        this.relay.event(type, buf.toString("utf8", text.indexOf("\n", start) + 1 + DATA_PREFIX.length, end));
      }
      start = end + 2;
      if (this.relay.done) return null;
    }
    if (start < buf.length) this.tail = buf.subarray(start);
    // A long event (a Responses answer's whole Response at its end) is left to the relay's own
    // reader: gathering it here would copy its bytes again with every chunk.
    if (this.tail && this.tail.length > HELD_LIMIT) this.readAll();
    return null;
  }

  transformFramed(framing: StreamFraming, chunk: Uint8Array): Uint8Array | null {
    this.readAll();
    return this.relay.transformFramed(framing, chunk);
  }

  endFramed(framing: StreamFraming): Uint8Array | null {
    this.readAll();
    return this.relay.endFramed(framing);
  }

  finish(): Uint8Array | null {
    const tail = this.tail;
    this.tail = null;
    // The last event may lack its blank line (the relay's reader reads it at the end), and
    // without the vendor's usage the delivered text is counted: both need what was held.
    if (tail || !this.relay.sawUpstreamUsage) this.readHeld();
    if (tail) this.relay.transform(tail);
    return this.relay.finish();
  }

  abort(reason: "interrupted" | "timeout" | "shutdown"): Uint8Array | null {
    // An event cut off in the middle is not read, as the relay's own reader would not.
    if (!this.relay.sawUpstreamUsage) this.readHeld();
    return this.relay.abort(reason);
  }

  get done(): boolean {
    return this.relay.done;
  }
  get endReason() {
    return this.relay.endReason;
  }
  get error() {
    return this.relay.error;
  }
  /** Without the vendor's usage the delivered text is counted (a client that left: nothing else read it). */
  get usage() {
    if (!this.relay.sawUpstreamUsage) this.readHeld();
    return this.relay.usage;
  }
  get sawUpstreamUsage(): boolean {
    return this.relay.sawUpstreamUsage;
  }
  get firstTokenAt(): number | null {
    return this.relay.firstTokenAt;
  }
  get firstByteAt(): number | null {
    return this.firstByte;
  }

  /**
   * The type of the event `text[start, end)` (its blank line after `end`) when it is framed as its
   * vendor frames it: `event: <type>`, then one data line whose JSON names the same type first
   * (what the converter reads). Null for anything else.
   */
  private typeOf(text: string, start: number, end: number): string | null {
    if (!text.startsWith(EVENT_PREFIX, start)) return null;
    const nameStart = start + EVENT_PREFIX.length;
    const nameEnd = text.indexOf("\n", nameStart);
    if (nameEnd >= end) return null;
    if (nameEnd === nameStart || !text.startsWith(DATA_TYPE_PREFIX, nameEnd + 1) || text.indexOf("\n", nameEnd + 1) !== end) return null;
    const type = text.slice(nameStart, nameEnd);
    const typeAt = nameEnd + 1 + DATA_TYPE_PREFIX.length;
    return text.startsWith(type, typeAt) && text.charCodeAt(typeAt + type.length) === 0x22 ? type : null;
  }

  private hold(event: Buffer): void {
    this.held.push(event);
    this.heldBytes += event.length;
    if (this.heldBytes > HELD_LIMIT) this.readHeld();
  }

  /** Hands the relay the held events, in order. */
  private readHeld(): void {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    this.relay.transform(held.length === 1 ? held[0]! : Buffer.concat(held));
  }

  /** From here on the relay reads every byte itself. */
  private readAll(): void {
    this.readHeld();
    const tail = this.tail;
    this.tail = null;
    this.scanning = false;
    if (tail) this.relay.transform(tail);
  }
}
