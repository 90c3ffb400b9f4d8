// AWS's binary event stream (application/vnd.amazon.eventstream), as Bedrock's
// invoke-with-response-stream sends it, → server-sent events of Anthropic stream events.
// A message: total length (4 bytes), headers length (4), CRC32 of those 8 bytes (4), headers,
// payload, CRC32 of everything before it (4); big-endian. A header: name length (1), name,
// value type (1), value (type 7, a string: length (2) then UTF-8). Both CRCs are checked.
import { crc32 } from "node:zlib";
import type { StreamFraming } from "../types";
import { countUnknownEvent } from "../unknown-events";

const PRELUDE = 12;
const MIN_MESSAGE = PRELUDE + 4;
const MAX_MESSAGE = 16 * 1024 * 1024;

export type EventHeaders = Record<string, string | number | boolean | Uint8Array>;
export interface EventMessage {
  headers: EventHeaders;
  payload: Buffer;
}

/** Header values by type code; the fixed-size ones carry their width. */
function readHeaders(buf: Buffer): EventHeaders {
  const out: EventHeaders = {};
  let i = 0;
  while (i < buf.length) {
    const nameLen = buf[i]!;
    const name = buf.toString("utf8", i + 1, i + 1 + nameLen);
    i += 1 + nameLen;
    const type = buf[i++];
    switch (type) {
      case 0:
        out[name] = true;
        break;
      case 1:
        out[name] = false;
        break;
      case 2:
        out[name] = buf.readInt8(i);
        i += 1;
        break;
      case 3:
        out[name] = buf.readInt16BE(i);
        i += 2;
        break;
      case 4:
        out[name] = buf.readInt32BE(i);
        i += 4;
        break;
      case 5:
      case 8:
        out[name] = Number(buf.readBigInt64BE(i));
        i += 8;
        break;
      case 6:
      case 7: {
        const len = buf.readUInt16BE(i);
        const value = buf.subarray(i + 2, i + 2 + len);
        out[name] = type === 7 ? value.toString("utf8") : new Uint8Array(value);
        i += 2 + len;
        break;
      }
      case 9:
        out[name] = new Uint8Array(buf.subarray(i, i + 16));
        i += 16;
        break;
      default:
        throw new Error(`unknown event stream header type ${type}`);
    }
  }
  return out;
}

/** Encodes one message with string headers (tests and mocks build Bedrock's stream with it). */
export function encodeEventMessage(headers: Record<string, string>, payload: Uint8Array | string): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, "utf8");
    const v = Buffer.from(value, "utf8");
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    parts.push(Buffer.from([n.length]), n, Buffer.from([7]), len, v);
  }
  const head = Buffer.concat(parts);
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload);
  const total = PRELUDE + head.length + body.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(head.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  head.copy(out, PRELUDE);
  body.copy(out, PRELUDE + head.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** Splits bytes into messages, checking lengths and CRCs; throws on a corrupt stream. */
export class EventStreamDecoder {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): EventMessage[] {
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    const out: EventMessage[] = [];
    while (this.buf.length >= PRELUDE) {
      const total = this.buf.readUInt32BE(0);
      const headersLen = this.buf.readUInt32BE(4);
      if (crc32(this.buf.subarray(0, 8)) !== this.buf.readUInt32BE(8)) throw new Error("event stream prelude checksum mismatch");
      if (total < MIN_MESSAGE || total > MAX_MESSAGE || headersLen > total - MIN_MESSAGE)
        throw new Error("event stream message length invalid");
      if (this.buf.length < total) break;
      const msg = this.buf.subarray(0, total);
      if (crc32(msg.subarray(0, total - 4)) !== msg.readUInt32BE(total - 4)) throw new Error("event stream message checksum mismatch");
      out.push({
        headers: readHeaders(msg.subarray(PRELUDE, PRELUDE + headersLen)),
        payload: Buffer.from(msg.subarray(PRELUDE + headersLen, total - 4)),
      });
      this.buf = this.buf.subarray(total);
    }
    return out;
  }

  /** Bytes left over that never made a whole message. */
  get pending(): number {
    return this.buf.length;
  }
}

const errorEvent = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });

/** One message → the JSON text of the Anthropic event it carries, of an error event, or "" for none. */
function messageToEvent(m: EventMessage): string {
  const kind = m.headers[":message-type"];
  if (kind === "exception") {
    const type = String(m.headers[":exception-type"] ?? "exception");
    let message = m.payload.toString("utf8");
    try {
      const j = JSON.parse(message) as { message?: unknown; Message?: unknown };
      message = String(j.message ?? j.Message ?? message);
    } catch {
      // plain-text payload: the message as is
    }
    return errorEvent(type, message || type);
  }
  if (kind === "error")
    return errorEvent(String(m.headers[":error-code"] ?? "error"), String(m.headers[":error-message"] ?? "upstream error"));
  if (m.headers[":event-type"] !== "chunk") {
    // Bedrock's invoke stream sends chunks only; another event type is counted, not read.
    countUnknownEvent("bedrock", String(m.headers[":event-type"]));
    return "";
  }
  let bytes: unknown;
  try {
    bytes = (JSON.parse(m.payload.toString("utf8")) as { bytes?: unknown }).bytes;
  } catch {
    return errorEvent("malformed_event", "Bedrock sent a chunk that is not JSON");
  }
  if (typeof bytes !== "string") return "";
  return Buffer.from(bytes, "base64").toString("utf8").trim();
}

/** The StreamFraming of Bedrock's invoke-with-response-stream, made per call. */
export function bedrockEventStreamFraming(): StreamFraming {
  const decoder = new EventStreamDecoder();
  let broken = false;
  return {
    push(chunk, out) {
      if (broken) return;
      let messages: EventMessage[];
      try {
        messages = decoder.push(chunk);
      } catch (error) {
        broken = true;
        out.event(errorEvent("malformed_event_stream", (error as Error).message));
        return;
      }
      for (const m of messages) {
        const event = messageToEvent(m);
        if (event !== "") out.event(event);
      }
    },
    end(out) {
      if (broken || decoder.pending === 0) return;
      broken = true;
      out.event(errorEvent("malformed_event_stream", "event stream ended inside a message"));
    },
  };
}
