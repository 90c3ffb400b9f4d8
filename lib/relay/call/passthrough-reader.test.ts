// The passthrough reader against the stream relay reading every event: for Claude's and OpenAI
// Responses' recorded streams cut into pieces at every byte, whole or cut off, the bookkeeping
// (usage, first-token and first-byte times, how the stream ended, its error) is the same, while
// the events after the first token that carry only content are not parsed at all.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenAIStreamRelay } from "@/lib/relay/openai/stream-relay";
import { anthropicResponseConverter } from "@/lib/relay/providers/anthropic/convert-response";
import { responsesReader } from "@/lib/relay/providers/openai-responses";
import type { ResponseConverter } from "@/lib/relay/providers";
import { passthroughBookkeeping, PassthroughReader, type StreamBookkeeping } from "./passthrough-reader";

const claudeFixture = (name: string) => readFileSync(path.join(import.meta.dirname, "../providers/anthropic/__fixtures__", name), "utf8");

/** A Responses stream as OpenAI frames it (`event: <type>` + `data: {"type":…}`), ending as given. */
function responsesStream(end: "completed" | "failed"): string {
  const response = { id: "resp_1", object: "response", created_at: 1_700_000_000, model: "gpt-4o", status: "in_progress" };
  const events: Record<string, unknown>[] = [
    { type: "response.created", sequence_number: 0, response },
    { type: "response.in_progress", sequence_number: 1, response },
    {
      type: "response.output_item.added",
      sequence_number: 2,
      output_index: 0,
      item: { id: "msg_1", type: "message", role: "assistant", content: [] },
    },
    {
      type: "response.content_part.added",
      sequence_number: 3,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "" },
    },
    ...["Hello", " there, ", "how can ", "I help?"].map((delta, i) => ({
      type: "response.output_text.delta",
      sequence_number: 4 + i,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta,
    })),
    {
      type: "response.output_text.done",
      sequence_number: 8,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      text: "Hello there, how can I help?",
    },
  ];
  if (end === "completed") {
    events.push({
      type: "response.completed",
      sequence_number: 9,
      response: {
        ...response,
        status: "completed",
        usage: {
          input_tokens: 31,
          input_tokens_details: { cached_tokens: 8 },
          output_tokens: 7,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 38,
        },
      },
    });
  } else {
    events.push({
      type: "response.failed",
      sequence_number: 9,
      response: { ...response, status: "failed", error: { code: "server_error", message: "boom" } },
    });
  }
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

/** A clock that reads the number of the piece being fed: times say which piece carried what. */
class PieceClock {
  piece = 0;
  readonly now = () => this.piece;
}

/** The converter, counting the events it is handed (parsed). */
function counting(converter: ResponseConverter): { converter: ResponseConverter; parsed: string[] } {
  const parsed: string[] = [];
  return {
    parsed,
    converter: {
      ...converter,
      streamEvent: (data) => {
        parsed.push(String((data as { type?: unknown }).type));
        return converter.streamEvent!(data);
      },
    },
  };
}

/** `readOnly` as a passed-through stream's relay is (its output is never written). */
function newRelay(converter: ResponseConverter, clock: PieceClock, readOnly = false): OpenAIStreamRelay {
  return new OpenAIStreamRelay({
    readOnly,
    mode: "chat",
    model: "claude-3-5-sonnet-20241022",
    clientIncludeUsage: false,
    promptTokens: 40,
    requestId: "req1",
    now: clock.now,
    mapEvent: converter.streamEvent!.bind(converter),
  });
}

type Ending = "eof" | "interrupted" | "client-gone";

/** Feeds `bytes` cut at `cuts` (ascending offsets) and ends the stream as `ending` says. */
function feed(book: StreamBookkeeping, clock: PieceClock, bytes: Uint8Array, cuts: number[], ending: Ending) {
  let from = 0;
  for (const [i, to] of [...cuts, bytes.length].entries()) {
    clock.piece = i + 1;
    if (to > from) book.transform(bytes.subarray(from, to));
    from = to;
    if (book.done) break;
  }
  clock.piece = 1000;
  if (!book.done && ending === "eof") book.finish();
  if (!book.done && ending === "interrupted") book.abort("interrupted");
  // "client-gone": the stream is settled as it stands, neither finished nor aborted.
  return {
    usage: book.usage,
    sawUpstreamUsage: book.sawUpstreamUsage,
    endReason: book.endReason,
    error: book.error,
    firstTokenAt: book.firstTokenAt,
    firstByteAt: book.firstByteAt,
  };
}

const MODEL = "claude-3-5-sonnet-20241022";
const cases: [string, string, () => ResponseConverter, string][] = [
  ["Claude text", "anthropic", () => anthropicResponseConverter(MODEL, 0), claudeFixture("stream-text.sse")],
  ["Claude thinking and tool use", "anthropic", () => anthropicResponseConverter(MODEL, 0), claudeFixture("stream-tool-use.sse")],
  ["Claude compaction rounds", "anthropic", () => anthropicResponseConverter(MODEL, 0), claudeFixture("stream-compaction.sse")],
  ["Claude error event", "anthropic", () => anthropicResponseConverter(MODEL, 0), claudeFixture("stream-error.sse")],
  ["Responses completed", "openai-responses", responsesReader, responsesStream("completed")],
  ["Responses failed", "openai-responses", responsesReader, responsesStream("failed")],
];

describe("PassthroughReader", () => {
  for (const [name, protocol, converterFor, sse] of cases) {
    const bytes = new TextEncoder().encode(sse);
    const compare = (cuts: number[], ending: Ending) => {
      const clock = new PieceClock();
      const expected = feed(newRelay(converterFor(), clock), clock, bytes, cuts, ending);
      const readerClock = new PieceClock();
      const book = passthroughBookkeeping(newRelay(converterFor(), readerClock, true), protocol, readerClock.now);
      expect(book).toBeInstanceOf(PassthroughReader);
      expect(feed(book, readerClock, bytes, cuts, ending), `cut at ${cuts.join(",")}, ${ending}`).toEqual(expected);
    };

    it(`${name}: the same bookkeeping as reading every event, cut into two pieces at every byte`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) compare([cut], "eof");
    });

    it(`${name}: the same bookkeeping when the stream is cut off at any byte (interrupted, or the client left)`, () => {
      for (let cut = 1; cut < bytes.length; cut++) {
        const head = bytes.subarray(0, cut);
        for (const ending of ["interrupted", "client-gone"] as const) {
          const clock = new PieceClock();
          const expected = feed(newRelay(converterFor(), clock), clock, head, [], ending);
          const readerClock = new PieceClock();
          const book = passthroughBookkeeping(newRelay(converterFor(), readerClock, true), protocol, readerClock.now);
          expect(feed(book, readerClock, head, [], ending), `cut off at ${cut}, ${ending}`).toEqual(expected);
        }
      }
    });

    it(`${name}: the same bookkeeping fed in pieces of 1 to 9 bytes`, () => {
      for (let size = 1; size <= 9; size++) {
        const cuts: number[] = [];
        for (let at = size; at < bytes.length; at += size) cuts.push(at);
        compare(cuts, "eof");
      }
    });
  }

  it("parses only the events up to the first token and those carrying usage (Claude)", () => {
    const { converter, parsed } = counting(anthropicResponseConverter(MODEL, 0));
    const clock = new PieceClock();
    const book = passthroughBookkeeping(newRelay(converter, clock, true), "anthropic", clock.now);
    book.transform(Buffer.from(claudeFixture("stream-tool-use.sse")));
    book.finish();
    // The thinking delta is the first token; the later blocks are held and never read.
    expect(parsed).toEqual(["message_start", "content_block_start", "content_block_delta", "message_delta", "message_stop"]);
    expect(book.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it("reads the held content when the stream ends without usage, to count what was delivered", () => {
    const sse = claudeFixture("stream-text.sse");
    const cut = sse.indexOf("event: message_delta");
    const { converter, parsed } = counting(anthropicResponseConverter(MODEL, 0));
    const clock = new PieceClock();
    const book = passthroughBookkeeping(newRelay(converter, clock, true), "anthropic", clock.now);
    book.transform(Buffer.from(sse.slice(0, cut)));
    book.abort("interrupted");
    expect(parsed.filter((t) => t === "content_block_delta")).toHaveLength(2);
    expect(book.sawUpstreamUsage).toBe(false);
    expect(book.usage.completion_tokens).toBeGreaterThan(0);
  });

  it("reads everything itself for a stream with CR line ends, and for a protocol without a table", () => {
    const sse = claudeFixture("stream-text.sse").replace(/\n/g, "\r\n");
    const clock = new PieceClock();
    const expected = feed(newRelay(anthropicResponseConverter(MODEL, 0), clock), clock, Buffer.from(sse), [37, 300], "eof");
    const readerClock = new PieceClock();
    const book = passthroughBookkeeping(newRelay(anthropicResponseConverter(MODEL, 0), readerClock), "anthropic", readerClock.now);
    expect(feed(book, readerClock, Buffer.from(sse), [37, 300], "eof")).toEqual(expected);
    expect(expected.sawUpstreamUsage).toBe(true);
    const relay = newRelay(anthropicResponseConverter(MODEL, 0), clock);
    expect(passthroughBookkeeping(relay, "gemini")).toBe(relay);
  });
});
