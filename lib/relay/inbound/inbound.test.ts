// The inbound seam's plumbing, with a small protocol of the test's own: reading a call before
// routing, decoding it into the canonical request when asked, and re-encoding the relay's OpenAI
// stream.
import { describe, expect, it } from "vitest";
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest } from "@/lib/relay/http";
import { InboundCall, readInbound } from "./index";
import type { InboundProtocol } from "./types";

const echo: InboundProtocol = {
  name: "echo",
  match: (method, path) => (method === "POST" && path === "/echo" ? { call: {} } : null),
  toCanonical(body, route) {
    if (typeof body.say !== "string") throw new RelayError(400, "say must be a string");
    return { model: route.model ?? "m", stream: route.stream ?? false, messages: [{ role: "user", content: body.say }] };
  },
  fromCanonical: (answer) => ({ said: (answer.choices as { message: { content: string } }[])[0]!.message.content }),
  streamEncoder: () => ({
    chunk: (c) => {
      const choices = c.choices as { delta?: { content?: string } }[];
      if (choices.length === 0) return `event: usage\ndata: ${JSON.stringify(c.usage)}\n\n`;
      return `event: text\ndata: ${JSON.stringify(choices[0]!.delta?.content ?? "")}\n\n`;
    },
    error: (e) => `event: failed\ndata: ${JSON.stringify(e.message)}\n\n`,
    done: () => "event: end\ndata: {}\n\n",
  }),
  errorBody: (status, message) => ({ failed: { status, message } }),
};

function request(body: string): RelayRequest & { goneCallbacks: (() => void)[] } {
  const goneCallbacks: (() => void)[] = [];
  return {
    method: "POST",
    path: "/echo",
    query: new URLSearchParams(),
    headers: new Headers(),
    body: Buffer.from(body),
    clientIp: "127.0.0.1",
    gone: false,
    goneCallbacks,
    onGone(callback) {
      goneCallbacks.push(callback);
      return () => undefined;
    },
  };
}

describe("readInbound", () => {
  it("reads what routing and the hold need without the decoder, and decodes once, on demand", () => {
    let decoded = 0;
    const counting: InboundProtocol = {
      ...echo,
      toCanonical(body, route, notes) {
        decoded++;
        return echo.toCanonical(body, route, notes);
      },
    };
    const req = request('{"model":"m1","say":"hi","max_tokens":64}');
    const { call, json, reserveTokens } = readInbound(req, counting, { stream: true }, "rid");
    // a streamed call always asks for the usage chunk
    expect(json).toEqual({ model: "m1", stream: true, stream_options: { include_usage: true }, max_tokens: 64 });
    expect(reserveTokens).toBeGreaterThan(0);
    expect(call.info).toMatchObject({ requestId: "rid", model: "m1", request: { model: "m1", say: "hi", max_tokens: 64 } });
    expect(Buffer.from(call.rawBody).toString()).toBe('{"model":"m1","say":"hi","max_tokens":64}');
    expect(decoded).toBe(0);
    const canonical = call.canonical();
    expect(canonical.json).toEqual({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
      stream_options: { include_usage: true },
    });
    expect(JSON.parse(canonical.bytes.toString())).toEqual(canonical.json);
    expect(call.conversionRefusal).toBeNull();
    expect(call.dropped).toEqual([]);
    expect(decoded).toBe(1);
  });

  it("refuses what is not a JSON object at once", () => {
    expect(() => readInbound(request("nope"), echo, {}, "r")).toThrow(/JSON/);
    expect(() => readInbound(request("[1]"), echo, {}, "r")).toThrow(/JSON 对象/);
  });

  it("asks the decoder when nothing names a model, so its refusal is the answer", () => {
    expect(() => readInbound(request('{"say":1}'), echo, {}, "r")).toThrow(/say must be a string/);
    // The decoder's own model (here its default) when the body and the path name none.
    expect(readInbound(request('{"say":"hi"}'), echo, {}, "r").json.model).toBe("m");
  });

  it("keeps the decoder's refusal for a converting attempt, with a minimal canonical body", () => {
    const { call } = readInbound(request('{"model":"m1","say":1,"text":"words"}'), echo, {}, "r");
    const canonical = call.canonical();
    expect(canonical.refusal?.message).toBe("say must be a string");
    expect(canonical.json).toEqual({ model: "m1", messages: [{ role: "user", content: "words" }] });
  });

  it("estimates a large body's prompt from its text, not from inline files", () => {
    const text = "word ".repeat(8000);
    const image = `data:image/png;base64,${"A".repeat(400_000)}`;
    const plain = readInbound(request(JSON.stringify({ model: "m1", say: text })), echo, {}, "r").reserveTokens;
    const withImage = readInbound(
      request(JSON.stringify({ model: "m1", say: text, image, source: { type: "base64", data: "B".repeat(400_000) } })),
      echo,
      {},
      "r",
    ).reserveTokens;
    expect(plain).toBe(Math.ceil(text.length / 4));
    expect(withImage).toBe(plain + Math.ceil("base64".length / 4));
  });
});

describe("InboundStreamWriter", () => {
  const call = new InboundCall(echo, { requestId: "r", model: "m", created: 0, request: {} });
  const text = (b: Uint8Array | null) => (b ? Buffer.from(b).toString() : "");

  it("re-encodes chunks, the usage chunk and [DONE], across split writes", () => {
    const w = call.streamWriter();
    const relayed =
      'data: {"choices":[{"index":0,"delta":{"content":"he"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"y"}}]}\n\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\ndata: [DONE]\n\n';
    const out = [text(w.write(Buffer.from(relayed.slice(0, 30)))), text(w.write(Buffer.from(relayed.slice(30))))].join("");
    expect(out).toBe(
      'event: text\ndata: "he"\n\nevent: text\ndata: "y"\n\nevent: usage\ndata: {"prompt_tokens":1,"completion_tokens":2}\n\nevent: end\ndata: {}\n\n',
    );
    expect(w.write(Buffer.from('data: {"choices":[]}\n\n'))).toBeNull(); // nothing after the end
  });

  it("turns the relay's error event into the protocol's", () => {
    const w = call.streamWriter();
    const out = text(
      w.write(
        Buffer.from(
          'data: {"error":{"message":"upstream stream timed out","type":"upstream_error","code":"stream_timeout"}}\n\ndata: [DONE]\n\n',
        ),
      ),
    );
    expect(out).toBe('event: failed\ndata: "upstream stream timed out"\n\nevent: end\ndata: {}\n\n');
  });

  it("encodes a whole answer", () => {
    expect(call.encodeWhole({ choices: [{ message: { content: "ok" } }] })).toBe('{"said":"ok"}');
  });
});
