import { describe, expect, it } from "vitest";
import { sseJson } from "../../openai/sse";
import type { StreamFraming } from "../types";
import { bedrockEventStreamFraming, EventStreamDecoder, encodeEventMessage } from "./eventstream";
import { unknownEventCounts } from "../unknown-events";

/** The SSE text the stream relay writes for what a framing hands it. */
function sseOf(framing: StreamFraming) {
  let text = "";
  const sink = { event: (data: string) => (text += sseJson(data)), sse: (t: string) => (text += t) };
  const take = () => {
    const out = text;
    text = "";
    return out;
  };
  return {
    push: (chunk: Uint8Array) => (framing.push(chunk, sink), take()),
    end: () => (framing.end(sink), take()),
  };
}

const chunkFrame = (event: unknown) =>
  encodeEventMessage(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString("base64"), p: "abcd" }),
  );

const start = { type: "message_start", message: { id: "msg_1", model: "claude", usage: { input_tokens: 5, output_tokens: 1 } } };
const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi — ünïcode" } };

describe("AWS event stream framing", () => {
  it("round-trips a message with its headers and checks both CRCs", () => {
    const frame = encodeEventMessage({ ":event-type": "chunk", a: "b" }, "payload");
    // AWS's layout: total length, headers length, prelude CRC, headers, payload, message CRC.
    expect(frame.readUInt32BE(0)).toBe(frame.length);
    const [m] = new EventStreamDecoder().push(frame);
    expect(m!.headers).toEqual({ ":event-type": "chunk", a: "b" });
    expect(m!.payload.toString()).toBe("payload");
    const badBody = Buffer.from(frame);
    badBody[frame.length - 6]! ^= 1;
    expect(() => new EventStreamDecoder().push(badBody)).toThrow(/message checksum/);
    const badPrelude = Buffer.from(frame);
    badPrelude[1]! ^= 1;
    expect(() => new EventStreamDecoder().push(badPrelude)).toThrow(/prelude checksum/);
  });

  it("turns chunk frames split anywhere into SSE events", () => {
    const bytes = Buffer.concat([chunkFrame(start), chunkFrame(delta), chunkFrame({ type: "message_stop" })]);
    const expected = [start, delta, { type: "message_stop" }].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    for (const step of [1, 3, 7, 13, 64, bytes.length]) {
      const framing = sseOf(bedrockEventStreamFraming());
      let out = "";
      for (let i = 0; i < bytes.length; i += step) out += framing.push(bytes.subarray(i, i + step));
      out += framing.end();
      expect(out, `step ${step}`).toBe(expected);
    }
  });

  it("turns exception frames and corrupt or cut streams into error events", () => {
    const framing = sseOf(bedrockEventStreamFraming());
    const exception = encodeEventMessage(
      { ":exception-type": "throttlingException", ":content-type": "application/json", ":message-type": "exception" },
      JSON.stringify({ message: "Too many requests, please wait before trying again." }),
    );
    expect(framing.push(Buffer.concat([chunkFrame(start), exception]))).toBe(
      `data: ${JSON.stringify(start)}\n\n` +
        `data: ${JSON.stringify({ type: "error", error: { type: "throttlingException", message: "Too many requests, please wait before trying again." } })}\n\n`,
    );

    const corrupt = chunkFrame(delta);
    corrupt[corrupt.length - 1]! ^= 0xff;
    const broken = sseOf(bedrockEventStreamFraming());
    expect(broken.push(corrupt)).toContain('"type":"malformed_event_stream"');
    expect(broken.push(chunkFrame(delta))).toBe("");

    const cut = sseOf(bedrockEventStreamFraming());
    expect(cut.push(chunkFrame(delta).subarray(0, 20))).toBe("");
    expect(cut.end()).toContain("event stream ended inside a message");
  });

  it("counts an event type it does not know and reads the chunks around it", () => {
    const before = unknownEventCounts().get("bedrock:metadata") ?? 0;
    const other = encodeEventMessage({ ":event-type": "metadata", ":message-type": "event" }, "{}");
    const framing = sseOf(bedrockEventStreamFraming());
    const out = framing.push(Buffer.concat([chunkFrame(start), other, chunkFrame({ type: "message_stop" })])) + framing.end();
    expect(unknownEventCounts().get("bedrock:metadata")).toBe(before + 1);
    expect(out).toBe([start, { type: "message_stop" }].map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
  });
});
