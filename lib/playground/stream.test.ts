import { describe, expect, it } from "vitest";
import { readChatStream } from "@/lib/playground/stream";

const encoder = new TextEncoder();

/** A byte stream delivering these pieces one by one. */
function bytes(pieces: Array<string | Uint8Array>, { close = true } = {}) {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = pieces.shift();
      if (next === undefined) {
        if (close) controller.close();
        return;
      }
      controller.enqueue(typeof next === "string" ? encoder.encode(next) : next);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

async function read(pieces: Array<string | Uint8Array>, options?: { close?: boolean }) {
  const source = bytes(pieces, options);
  const deltas: string[] = [];
  const outcome = await readChatStream(source.stream, (t) => deltas.push(t));
  return { outcome, text: deltas.join(""), deltas, cancelled: source.cancelled() };
}

describe("readChatStream", () => {
  it("accumulates the deltas until [DONE]", async () => {
    const { outcome, deltas } = await read([
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] })}\n\n`,
      chunk("Hello"),
      chunk(", world"),
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\n`,
      "data: [DONE]\n\n",
    ]);
    expect(outcome).toEqual({ kind: "done" });
    expect(deltas).toEqual(["Hello", ", world"]);
  });

  it("joins events split across reads, CRLF line ends, comments and multi-byte characters cut in two", async () => {
    const text = chunk("你好，世界").replace(/\n/g, "\r\n");
    const all = encoder.encode(`: ping\n\n${text}data: [DONE]\n\n`);
    // Cut inside a three-byte character and inside the "data:" field name.
    const cut1 = all.indexOf(0xe4) + 1; // first byte of 你
    const pieces = [all.slice(0, 3), all.slice(3, cut1), all.slice(cut1, cut1 + 7), all.slice(cut1 + 7)];
    const { outcome, text: got } = await read(pieces);
    expect(outcome).toEqual({ kind: "done" });
    expect(got).toBe("你好，世界");
  });

  it("stops at an error event, keeping what came before, and cancels the rest", async () => {
    const { outcome, text, cancelled } = await read(
      [
        chunk("part"),
        `data: ${JSON.stringify({ error: { message: "upstream went away", type: "upstream_error" } })}\n\n`,
        "data: [DONE]\n\n",
      ],
      { close: false },
    );
    expect(outcome).toEqual({ kind: "error", error: "upstream went away" });
    expect(text).toBe("part");
    expect(cancelled).toBe(true);
  });

  it("a stream that ends without [DONE] is done with what arrived", async () => {
    const { outcome, text } = await read([chunk("a"), chunk("b")]);
    expect(outcome).toEqual({ kind: "done" });
    expect(text).toBe("ab");
  });

  it("an aborted read rejects with the AbortError, for the caller to report as stopped", async () => {
    const controller = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(chunk("x")));
        controller.signal.addEventListener("abort", () => c.error(controller.signal.reason));
      },
    });
    const deltas: string[] = [];
    const reading = readChatStream(stream, (t) => {
      deltas.push(t);
      controller.abort();
    });
    await expect(reading).rejects.toMatchObject({ name: "AbortError" });
    expect(deltas).toEqual(["x"]);
  });
});
