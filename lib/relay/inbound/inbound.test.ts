// The inbound seam's plumbing, with a small protocol of the test's own: decoding into the
// canonical request, and re-encoding the relay's OpenAI stream.
import { describe, expect, it } from "vitest";
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest } from "@/lib/relay/http";
import { canonicalRequest, InboundCall } from "./index";
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

describe("canonicalRequest", () => {
  it("decodes the caller's body and keeps the rest of the request", () => {
    const req = request('{"say":"hi"}');
    const { req: out, call } = canonicalRequest(req, echo, { model: "x", stream: true }, "rid");
    expect(JSON.parse(Buffer.from(out.body).toString())).toEqual({
      model: "x",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
      // a streamed call always asks for the usage chunk
      stream_options: { include_usage: true },
    });
    expect(out.path).toBe("/echo");
    expect(out.clientIp).toBe("127.0.0.1");
    expect(call.info).toMatchObject({ requestId: "rid", model: "x", request: { say: "hi" } });
    // onGone still watches the caller's connection
    const seen: string[] = [];
    out.onGone(() => seen.push("gone"));
    for (const cb of req.goneCallbacks) cb();
    expect(seen).toEqual(["gone"]);
  });

  it("refuses what is not a JSON object, and what the protocol refuses", () => {
    expect(() => canonicalRequest(request("nope"), echo, {}, "r")).toThrow(/JSON/);
    expect(() => canonicalRequest(request("[1]"), echo, {}, "r")).toThrow(/JSON 对象/);
    expect(() => canonicalRequest(request('{"say":1}'), echo, {}, "r")).toThrow(/say must be a string/);
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
