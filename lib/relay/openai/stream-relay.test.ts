import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenAIStreamRelay, openAIStreamTransform, plainTokenCheck, relayReadableStream, type OpenAIStreamOptions } from "./stream-relay";
import { countTextTokens } from "./token-count";

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8");
const dec = new TextDecoder();

/** Upstream data payloads of a fixture, in order (independent of the code under test). */
function payloads(sse: string): string[] {
  return sse
    .split(/\r?\n\r?\n/)
    .map((e) => e.trim())
    .filter((e) => e.startsWith("data:"))
    .map((e) => e.slice(5).trim());
}

/** Feed `text` in pieces cut at the given sizes (cycled), return everything written to the client. */
function run(text: string, opts: Partial<OpenAIStreamOptions>, sizes: number[] = [1_000_000]) {
  const relay = new OpenAIStreamRelay({
    mode: "chat",
    model: "gpt-4o",
    clientIncludeUsage: false,
    promptTokens: 11,
    requestId: "req1",
    ...opts,
  });
  const bytes = new TextEncoder().encode(text);
  let out = "";
  let pos = 0;
  for (let i = 0; pos < bytes.length; i++) {
    const n = sizes[i % sizes.length];
    const piece = relay.transform(bytes.subarray(pos, pos + n));
    if (piece) out += dec.decode(piece);
    pos += n;
  }
  const tail = relay.finish();
  if (tail) out += dec.decode(tail);
  return { relay, out, events: payloads(out) };
}

describe("OpenAIStreamRelay", () => {
  it("forwards every chunk verbatim, drops the usage chunk nobody asked for, ends with one [DONE]", () => {
    const src = fixture("openai-chat.chunks.txt");
    const up = payloads(src);
    const { relay, events, out } = run(src, {});
    // everything except the usage-only chunk and the upstream's own [DONE], byte for byte
    expect(events.slice(0, -1)).toEqual(up.slice(0, -2));
    expect(events.at(-1)).toBe("[DONE]");
    expect(out.split("data: [DONE]").length).toBe(2);
    expect(relay.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 });
    expect(relay.sawUpstreamUsage).toBe(true);
    expect(relay.deliveredText).toBe("Hello! How can I help you today?");
    expect(relay.finishReason).toBe("stop");
    expect(relay.endReason).toBe("done");
  });

  it("read-only, reads events handed over one by one as the SSE reader would, and writes nothing", () => {
    const sse = fixture("openai-chat-tools.chunks.txt");
    const reference = run(sse, { mapEvent: (d) => d as Record<string, unknown> }).relay;
    const relay = new OpenAIStreamRelay({
      mode: "chat",
      model: "gpt-4o",
      clientIncludeUsage: true,
      promptTokens: 11,
      readOnly: true,
      mapEvent: (d) => d as Record<string, unknown>,
    });
    for (const data of payloads(sse)) expect(relay.event(undefined, data)).toBeNull();
    expect(relay.finish()).toBeNull();
    expect(relay.usage).toEqual(reference.usage);
    expect(relay.toolCallCount).toBe(reference.toolCallCount);
    expect(relay.deliveredText).toBe(reference.deliveredText);
    expect(relay.endReason).toBe(reference.endReason);
  });

  it("forwards the upstream usage chunk when the client asked for include_usage", () => {
    const src = fixture("openai-chat.chunks.txt");
    const { events } = run(src, { clientIncludeUsage: true });
    expect(events).toEqual(payloads(src));
  });

  it("gives the same output whatever the chunking and line endings", () => {
    const src = fixture("openai-chat-tools.chunks.txt");
    const reference = run(src, { clientIncludeUsage: true }).out;
    for (const sizes of [[1], [7, 3, 101], [64], [4096]]) {
      expect(run(src, { clientIncludeUsage: true }, sizes).out).toBe(reference);
      expect(run(src.replace(/\n/g, "\r\n"), { clientIncludeUsage: true }, sizes).out).toBe(reference);
    }
    // multi-byte characters split across chunks
    const zh = fixture("moonshot-chat.chunks.txt");
    expect(run(zh, {}, [1]).relay.deliveredText).toBe("你好！有什么可以帮你的吗？");
  });

  it("accounts tool calls and upstream cache usage", () => {
    const { relay } = run(fixture("openai-chat-tools.chunks.txt"), {});
    expect(relay.toolCallCount).toBe(2);
    expect(relay.finishReason).toBe("tool_calls");
    expect(relay.usage).toMatchObject({ prompt_tokens: 80, completion_tokens: 46, cached_tokens: 64 });
  });

  it("counts locally and synthesises the usage chunk when the upstream sends none (Azure)", () => {
    const src = fixture("azure-chat.chunks.txt");
    const { relay, events } = run(src, { clientIncludeUsage: true, model: "gpt-4o", promptTokens: 11 });
    // Azure's prompt_filter_results chunk (choices: []) is forwarded untouched
    expect(events[0]).toBe(payloads(src)[0]);
    expect(relay.sawUpstreamUsage).toBe(false);
    const completion = countTextTokens("Hello from Azure.", "gpt-4o");
    expect(relay.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: completion, total_tokens: 11 + completion });
    const synth = JSON.parse(events.at(-2)!);
    expect(synth).toEqual({
      id: "chatcmpl-AOqhsXz1Lm0Q2w3e4r5t6y7u8i9o",
      object: "chat.completion.chunk",
      created: 1730500000,
      model: "gpt-4o-2024-05-13",
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: completion, total_tokens: 11 + completion },
    });
    expect(events.at(-1)).toBe("[DONE]");
  });

  it("does not synthesise usage when the client already received it inside a chunk (Moonshot, Mistral)", () => {
    for (const [name, usage] of [
      ["moonshot-chat.chunks.txt", { prompt_tokens: 19, completion_tokens: 9 }],
      ["mistral-chat.chunks.txt", { prompt_tokens: 7, completion_tokens: 3 }],
    ] as const) {
      const src = fixture(name);
      const { relay, events } = run(src, { clientIncludeUsage: true });
      expect(events).toEqual(payloads(src));
      expect(relay.usage).toMatchObject(usage);
    }
  });

  it("counts reasoning deltas and keeps the upstream's reasoning usage (DeepSeek)", () => {
    const { relay } = run(fixture("deepseek-reasoner.chunks.txt"), { model: "deepseek-reasoner" });
    expect(relay.reasoningText).toBe("Okay, the user says hi.");
    expect(relay.deliveredText).toBe("Hi! How can I help?");
    expect(relay.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 30, reasoning_tokens: 22 });
  });

  it("turns a mid-stream upstream error into an error event followed by [DONE]", () => {
    const { relay, events } = run(fixture("openai-error-midstream.chunks.txt"), {});
    expect(events).toHaveLength(5);
    expect(JSON.parse(events[3])).toEqual({
      error: {
        message: "The server had an error while processing your request. Sorry about that! (request id: req1)",
        type: "server_error",
        param: null,
        code: null,
      },
    });
    expect(events[4]).toBe("[DONE]");
    expect(relay.endReason).toBe("upstream_error");
    expect(relay.deliveredText).toBe("Partial answer");
    expect(relay.error?.type).toBe("server_error");
  });

  it("masks keys and addresses in a mid-stream upstream error, keeping the full text for the log", () => {
    const leaky = "Key sk-live-Zx81pQ7mN2vB5cD9eF3gH6jK reached quota at https://gw.vendor.example/v1 (via 10.20.30.40:8443)";
    const src = fixture("openai-error-midstream.chunks.txt").replace(
      "The server had an error while processing your request. Sorry about that!",
      leaky,
    );
    const { relay, events } = run(src, {});
    const shown = JSON.parse(events[3]).error.message as string;
    expect(shown).toBe("Key sk-*** reached quota at [url] (via [host]) (request id: req1)");
    expect(relay.error?.message).toBe(leaky);
  });

  it("emits an error event and [DONE] when the connection breaks after the first byte", () => {
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: true, promptTokens: 5, requestId: "r9" });
    const first = payloads(fixture("openai-chat.chunks.txt"))
      .slice(0, 3)
      .map((p) => `data: ${p}\n\n`)
      .join("");
    expect(relay.transform(first)).not.toBeNull();
    expect(relay.started).toBe(true);
    const tail = payloads(dec.decode(relay.abort("interrupted")!));
    expect(JSON.parse(tail[0]).error).toMatchObject({
      code: "stream_interrupted",
      type: "upstream_error",
      message: "upstream stream interrupted (request id: r9)",
    });
    expect(tail.slice(1)).toEqual(["[DONE]"]);
    expect(relay.abort("timeout")).toBeNull();
    expect(relay.finish()).toBeNull();
    expect(relay.endReason).toBe("interrupted");
    expect(relay.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: countTextTokens("Hello!", "gpt-4o") });
  });

  it("forwards each event immediately, records first-byte and first-token times", () => {
    let t = 1000;
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: false, promptTokens: 1, now: () => t });
    const [role, hello] = payloads(fixture("openai-chat.chunks.txt"));
    const a = relay.transform(`data: ${role}\n\n`);
    expect(dec.decode(a!)).toBe(`data: ${role}\n\n`);
    expect(relay.firstByteAt).toBe(1000);
    expect(relay.firstTokenAt).toBeNull(); // a role-only delta is not content
    t = 1250;
    expect(relay.transform(`data: ${hello.slice(0, 20)}`)).toBeNull(); // incomplete event: nothing yet
    t = 1300;
    expect(dec.decode(relay.transform(`${hello.slice(20)}\n\n`)!)).toBe(`data: ${hello}\n\n`);
    expect(relay.firstTokenAt).toBe(1300);
  });

  it("reads a long event that comes in many pieces once it ends, whatever piece its end is in", () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;
    const big = "x".repeat(2_000_000);
    const usage =
      'data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}\n\n';
    const src = `${chunk("Hi") + chunk(big) + chunk("!") + usage}data: [DONE]\n\n`;
    // Pieces of 1 000 bytes; then pieces cut so the blank line after the long event is split
    // between two of them (its first \n ends one piece, its second starts the next).
    const longEnds = src.indexOf("\n\n", chunk("Hi").length);
    for (const sizes of [[1000], [longEnds + 1, 1000]]) {
      const { relay, events } = run(src, { clientIncludeUsage: true }, sizes);
      expect(events.length).toBe(5);
      expect(JSON.parse(events[1]!).choices[0].delta.content).toBe(big);
      expect(relay.deliveredText).toBe(`Hi${big}!`);
      expect(relay.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
      expect(relay.endReason).toBe("done");
    }
    // An empty read between the two halves of that blank line changes nothing.
    const half = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: true, promptTokens: 1 });
    const head = src.slice(0, longEnds + 1);
    let out = dec.decode(half.transform(head.slice(0, 1000)) ?? new Uint8Array());
    out += dec.decode(half.transform(head.slice(1000)) ?? new Uint8Array());
    out += dec.decode(half.transform(new Uint8Array()) ?? new Uint8Array());
    out += dec.decode(half.transform(src.slice(longEnds + 1, longEnds + 2)) ?? new Uint8Array());
    expect(payloads(out).length).toBe(2); // both first events, as soon as the long one ended
    // A CR in a later piece of the long event: the full reader takes over and reads it all.
    const crlf = chunk("Hi") + chunk(big).replace("\n\n", "\r\n\r\n") + usage.replaceAll("\n", "\r\n");
    const cr = run(crlf, { clientIncludeUsage: true }, [1000]);
    expect(cr.relay.deliveredText).toBe(`Hi${big}`);
    expect(cr.relay.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
    // An event that never ends within MAX_EVENT_BYTES is cut off.
    const endless = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: false, promptTokens: 1 });
    endless.transform(chunk("Hi"));
    endless.transform(`data: {"choices":[{"delta":{"content":"`);
    const mb = Buffer.alloc(1024 * 1024, 0x78);
    for (let i = 0; i < 17 && !endless.done; i++) endless.transform(mb);
    expect(endless.done).toBe(true);
    expect(endless.endReason).toBe("overflow");
  });

  it("tells from a chunk's bytes whether it holds a token, or says it cannot", () => {
    const check = (json: string, mode: "chat" | "completions" = "chat") => plainTokenCheck(`data: ${json}\n\n`, 6, 6 + json.length, mode);
    expect(check('{"choices":[{"delta":{"role":"assistant","content":""}}]}')).toBe(false);
    expect(check('{"choices":[{"delta":{"content":null,"reasoning_content":"Hm"}}]}')).toBe(true);
    expect(check('{"choices":[{"delta":{"content" :  "Hi"}}]}')).toBe(true);
    expect(check('{"choices":[{"delta":{},"finish_reason":"stop"}]}')).toBe(false);
    expect(check('{"choices":[{"delta":{"role":"content"}}]}')).toBe(false); // a value, not a key
    expect(check('{"choices":[{"delta":{"content":"say \\"hi\\""}}]}')).toBeNull(); // escapes: parse it
    expect(check('{"choices":[{"delta":{"tool_calls":[]}}]}')).toBeNull();
    expect(check('{"choices":[{"logprobs":{"content":[]}}]}')).toBeNull();
    expect(check('{"choices":[{"text":"Hi"}]}', "completions")).toBe(true);
    expect(check('{"choices":[{"text":"","logprobs":{"text_offset":[0]}}]}', "completions")).toBe(false);
    // Only the chunk's own bytes count, not what arrived after it in the same read.
    const empty = '{"choices":[{"delta":{"content":""}}]}';
    const after = `data: ${empty}\n\ndata: {"choices":[{"delta":{"tool_calls":[],"content":"say \\"x\\""}}]}\n\n`;
    expect(plainTokenCheck(after, 6, 6 + empty.length, "chat")).toBe(false);
  });

  it("leaves chunks unparsed from the start and still knows the first token's time, the text and the first chunk's id", () => {
    let t = 1000;
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: true, promptTokens: 1, now: () => t });
    const chunk = (id: string, delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 7, model: "m1", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    relay.transform(chunk("first", { role: "assistant", content: "" }));
    t = 1200;
    relay.transform(chunk("second", { content: "Hello" }));
    expect(relay.firstTokenAt).toBe(1200);
    t = 1300;
    relay.transform(chunk("third", { content: ' "quoted"' })); // escapes: read at once, after the two before it
    t = 1400;
    relay.transform(chunk("fourth", { content: "!" }));
    const tail = dec.decode(relay.finish()!);
    expect(relay.deliveredText).toBe('Hello "quoted"!');
    expect(relay.firstTokenAt).toBe(1200);
    expect(relay.eventCounts).toEqual({ events: 4, malformed: 0 });
    // No usage from the upstream: the synthesised chunk carries the first chunk's id.
    expect(JSON.parse(payloads(tail)[0]!)).toMatchObject({ id: "first", created: 7, model: "m1", choices: [] });
  });

  it("ends an upstream that closes without [DONE] with exactly one [DONE]", () => {
    const src = fixture("mistral-chat.chunks.txt").replace("data: [DONE]\n\n", "");
    const { relay, out } = run(src.slice(0, -1), {}); // also drop the final blank line
    expect(out.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(out.split("[DONE]").length).toBe(2);
    expect(relay.endReason).toBe("eof");
    expect(relay.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
  });

  it("reads events separated by single newlines and ignores comments and garbage", () => {
    const up = payloads(fixture("openai-chat.chunks.txt"));
    const text = `: keep-alive\n\ndata: not json\n\n${up
      .slice(0, 4)
      .map((p) => `data: ${p}\n`)
      .join("")}\n`;
    const { relay, events } = run(text, {});
    expect(events.slice(0, -1)).toEqual(up.slice(0, 4));
    expect(relay.eventCounts).toEqual({ events: 4, malformed: 1 });
  });

  it("forwards plain events as the same bytes and reads unparsed chunks only when their text is needed", () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    // 20 000 chunks (~2.6 MB, far over what is held unparsed), no usage from the upstream; one
    // chunk's text says "usage" and one says "error", which only makes them read at once.
    const words = Array.from({ length: 20_000 }, (_, i) => (i === 500 ? '"usage"' : i === 501 ? '"error"' : ` w${i}`));
    const src = `${words.map(chunk).join("")}data: [DONE]\n\n`;
    const { relay, out } = run(src, { clientIncludeUsage: false }, [65_536]);
    expect(out).toBe(src); // byte for byte, [DONE] included
    expect(relay.deliveredText).toBe(words.join(""));
    expect(relay.sawUpstreamUsage).toBe(false);
    expect(relay.usage.completion_tokens).toBe(countTextTokens(words.join(""), "gpt-4o"));
    expect(relay.eventCounts).toEqual({ events: 20_000, malformed: 0 });
  });

  it("forwards a chunk-shaped payload that is not JSON once content flows, and counts it as malformed", () => {
    const up = payloads(fixture("openai-chat.chunks.txt"));
    const text = `data: ${up[0]}\n\ndata: ${up[1]}\n\ndata: {"broken"\n\ndata: {not json}\n\ndata: [DONE]\n\n`;
    const { relay, events } = run(text, {});
    expect(events).toEqual([up[0], up[1], "{not json}", "[DONE]"]);
    expect(relay.eventCounts).toEqual({ events: 2, malformed: 2 });
  });

  it("completions mode reads choice text", () => {
    const chunk = (text: string, finish: string | null) =>
      `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", created: 1, model: "gpt-3.5-turbo-instruct", choices: [{ text, index: 0, logprobs: null, finish_reason: finish }] })}\n\n`;
    const { relay, events } = run(`${chunk("Hello", null) + chunk(" there", "length")}data: [DONE]\n\n`, {
      mode: "completions",
      model: "gpt-3.5-turbo-instruct",
      clientIncludeUsage: true,
    });
    expect(relay.deliveredText).toBe("Hello there");
    expect(JSON.parse(events.at(-2)!)).toMatchObject({ object: "text_completion", choices: [], usage: { prompt_tokens: 11 } });
  });

  it("works as a web TransformStream and survives an upstream read error", async () => {
    const src = fixture("openai-chat.chunks.txt");
    const body = new Response(src).body!;
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: true, promptTokens: 1 });
    const text = await new Response(body.pipeThrough(openAIStreamTransform(relay))).text();
    expect(payloads(text)).toEqual(payloads(src));

    const first = payloads(src)[1];
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode(`data: ${first}\n\n`));
        } else controller.error(new Error("socket hang up"));
      },
    });
    const relay2 = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o", clientIncludeUsage: false, promptTokens: 1 });
    const out = payloads(await new Response(relayReadableStream(broken, relay2)).text());
    expect(out[0]).toBe(first);
    expect(JSON.parse(out[1]).error.code).toBe("stream_interrupted");
    expect(out[2]).toBe("[DONE]");
  });
});
