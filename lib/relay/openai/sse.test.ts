import { describe, expect, it } from "vitest";
import { SSE_DONE_TEXT, SSE_PING_TEXT, SseReader, splitDataLines, sseComment, sseJson, sseNamedEvent, sseText, type SseEvent } from "./sse";

function read(chunks: Array<string | Uint8Array>, opts: { maxBufferChars?: number } = {}) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let overflow = false;
  const r = new SseReader({
    onEvent: (e) => events.push(e),
    onComment: (c) => comments.push(c),
    onOverflow: () => (overflow = true),
    ...opts,
  });
  for (const c of chunks) r.feed(c);
  r.end();
  return { events, comments, overflow };
}

describe("writing", () => {
  it("frames JSON on one line, text on several, comments and named events", () => {
    expect(sseJson('{"a":1}')).toBe('data: {"a":1}\n\n');
    expect(sseJson('{\n  "a": 1\r\n}')).toBe('data: {  "a": 1}\n\n');
    expect(sseText("line1\nline2")).toBe("data: line1\ndata: line2\n\n");
    expect(sseComment("ping")).toBe(": ping\n\n");
    expect(SSE_PING_TEXT).toBe(": ping\n\n");
    expect(SSE_DONE_TEXT).toBe("data: [DONE]\n\n");
    expect(sseNamedEvent("message_stop", '{"type":"message_stop"}')).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });
});

describe("SseReader", () => {
  const text = 'data: {"a":1}\n\n: keep-alive\n\nevent: error\ndata: {"b":2}\n\ndata: [DONE]\n\n';
  const expected = [
    { event: undefined, data: '{"a":1}', id: undefined },
    { event: "error", data: '{"b":2}', id: undefined },
    { event: undefined, data: "[DONE]", id: undefined },
  ];

  it("parses events and comments whatever the chunking and line endings", () => {
    for (const variant of [text, text.replace(/\n/g, "\r\n"), text.replace(/\n/g, "\r")]) {
      for (const size of [1, 2, 5, 1000]) {
        const chunks: string[] = [];
        for (let i = 0; i < variant.length; i += size) chunks.push(variant.slice(i, i + size));
        const { events, comments } = read(chunks);
        expect(events).toEqual(expected);
        expect(comments).toEqual(["keep-alive"]);
      }
    }
  });

  it("decodes UTF-8 split across byte chunks and strips a BOM", () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: {"t":"你好👋"}\n\n');
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    expect(read(chunks).events).toEqual([{ event: undefined, data: '{"t":"你好👋"}', id: undefined }]);
  });

  it("joins multi-line data and dispatches a final event without a closing blank line", () => {
    expect(read(['data: {\ndata: "a": 1\ndata: }\n\ndata: last']).events.map((e) => e.data)).toEqual(['{\n"a": 1\n}', "last"]);
  });

  it("reads plain data events directly and hands every other block to the full parser, in order", () => {
    const mixed =
      'data: {"a":1}\n\n\n\ndata:{"b":2}\n\nid: 7\ndata: x\n\n: note\n\ndata: y\ndata: z\n\nevent: ping\ndata: {}\n\ndata\n\ndata: last';
    for (const size of [1, 3, 7, 1000]) {
      const chunks: string[] = [];
      for (let i = 0; i < mixed.length; i += size) chunks.push(mixed.slice(i, i + size));
      const { events, comments } = read(chunks);
      expect(events.map((e) => [e.event, e.data])).toEqual([
        [undefined, '{"a":1}'],
        [undefined, '{"b":2}'],
        [undefined, "x"],
        [undefined, "y\nz"],
        ["ping", "{}"],
        [undefined, ""],
        [undefined, "last"],
      ]);
      expect(events[2]!.id).toBe("7");
      expect(comments).toEqual(["note"]);
    }
  });

  it("switches to the full parser for good when a CR line end appears mid-stream", () => {
    const { events } = read(['data: {"a":1}\n\ndata: {"b"', ':2}\r\n\r\ndata: {"c":3}\n\n']);
    expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("stops on an upstream that never completes an event", () => {
    const { events, overflow } = read([`data: ${"x".repeat(2000)}`], { maxBufferChars: 1000 });
    expect(overflow).toBe(true);
    expect(events).toEqual([]);
  });
});

describe("splitDataLines", () => {
  it("keeps one multi-line JSON text whole and splits newline-separated events", () => {
    expect(splitDataLines('{"a":1}')).toEqual(['{"a":1}']);
    expect(splitDataLines('{\n"a": 1\n}')).toEqual(['{\n"a": 1\n}']);
    expect(splitDataLines('{"a":1}\n{"b":2}\n[DONE]')).toEqual(['{"a":1}', '{"b":2}', "[DONE]"]);
  });
});
