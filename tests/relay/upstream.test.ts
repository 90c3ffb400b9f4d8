// UpstreamExchange against a real HTTP server on loopback: whole bodies, pushed bodies with
// backpressure, aborts before and after the headers, broken connections and the size limit.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitUrl, UpstreamBodyTooLarge, UpstreamExchange, type UpstreamSink } from "@/lib/relay/upstream";

let server: http.Server;
let origin: string;
const agent = new Agent({ keepAliveTimeout: 1_000 });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    req.resume();
    req.on("end", () => {
      if (url.pathname === "/json") {
        res.writeHead(201, { "content-type": "application/json", "X-Custom": "yes" });
        res.end(JSON.stringify({ ok: true, q: url.search }));
      } else if (url.pathname === "/chunks") {
        // 20 chunks of 64 KiB, written as fast as the socket takes them.
        res.writeHead(200, { "content-type": "text/event-stream" });
        let i = 0;
        const next = () => {
          while (i < 20) {
            const more = res.write(Buffer.alloc(64 * 1024, 97 + (i++ % 26)));
            if (!more) return void res.once("drain", next);
          }
          res.end();
        };
        next();
      } else if (url.pathname === "/break") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: one\n\n");
        setTimeout(() => res.socket?.destroy(), 50);
      } else if (url.pathname === "/never") {
        // No answer at all: only an abort ends this exchange.
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const send = (path: string) =>
  UpstreamExchange.send(agent, { method: "POST", url: `${origin}${path}`, headers: { "content-type": "application/json" }, body: "{}" });

describe("splitUrl", () => {
  it("splits origin and path without a URL parser in the common case, and with one otherwise", () => {
    expect(splitUrl("https://api.openai.com/v1/chat/completions")).toEqual({
      origin: "https://api.openai.com",
      path: "/v1/chat/completions",
    });
    expect(splitUrl("http://127.0.0.1:8080")).toEqual({ origin: "http://127.0.0.1:8080", path: "/" });
    expect(splitUrl("http://h:1?api-version=2024-02-01")).toEqual({ origin: "http://h:1", path: "/?api-version=2024-02-01" });
    expect(splitUrl("https://x.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-02-01")).toEqual({
      origin: "https://x.openai.azure.com",
      path: "/openai/deployments/gpt-4o/chat/completions?api-version=2024-02-01",
    });
    // Non-ASCII, spaces, fragments and credentials go through the URL parser.
    expect(splitUrl("http://h/模型 a#frag")).toEqual({ origin: "http://h", path: "/%E6%A8%A1%E5%9E%8B%20a" });
    expect(splitUrl("http://user:pw@h/p")).toEqual({ origin: "http://h", path: "/p" });
  });
});

describe("UpstreamExchange", () => {
  it("collects a whole answer with its status and lower-cased headers", async () => {
    const ex = send("/json?x=1");
    await ex.response;
    expect(ex.status).toBe(201);
    expect(ex.headers["x-custom"]).toBe("yes");
    expect(JSON.parse((await ex.bytes()).toString())).toEqual({ ok: true, q: "?x=1" });
    expect(ex.ended).toBe(true);
  });

  it("pushes a long body into a sink in order, pausing the upstream while the sink is full", async () => {
    const ex = send("/chunks");
    await ex.response;
    const got: Buffer[] = [];
    let pauses = 0;
    let ended = 0;
    await new Promise<void>((resolve, reject) => {
      const sink: UpstreamSink = {
        data(chunk) {
          got.push(chunk);
          if (got.length % 3 === 0) {
            pauses++;
            setTimeout(() => ex.resume(), 5);
            return false;
          }
          return true;
        },
        end() {
          ended++;
          resolve();
        },
        error: reject,
      };
      ex.pipe(sink);
    });
    const body = Buffer.concat(got);
    expect(body.length).toBe(20 * 64 * 1024);
    for (let i = 0; i < 20; i++) expect(body[i * 64 * 1024]).toBe(97 + (i % 26));
    expect(pauses).toBeGreaterThan(0);
    expect(ended).toBe(1);
  });

  it("hands the sink what arrived before it was attached, then the end", async () => {
    const ex = send("/json");
    await ex.response;
    await new Promise((r) => setTimeout(r, 50)); // the whole answer is in by now
    const parts: string[] = [];
    await new Promise<void>((resolve, reject) => ex.pipe({ data: (c) => (parts.push(c.toString()), true), end: resolve, error: reject }));
    expect(JSON.parse(parts.join(""))).toEqual({ ok: true, q: "" });
  });

  it("an abort before the answer rejects `response` with the reason", async () => {
    const ex = send("/never");
    ex.abort(new Error("client disconnected"));
    await expect(ex.response).rejects.toThrow("client disconnected");
  });

  it("an abort while waiting for the headers ends the wait", async () => {
    const ex = send("/never");
    setTimeout(() => ex.abort(new Error("client disconnected")), 50);
    await expect(ex.response).rejects.toThrow("client disconnected");
  });

  it("a connection broken after the headers reaches the sink as an error", async () => {
    const ex = send("/break");
    await ex.response;
    const outcome = await new Promise<string>((resolve) =>
      ex.pipe({ data: () => true, end: () => resolve("end"), error: (e) => resolve(`error: ${e.message}`) }),
    );
    expect(outcome).toMatch(/^error: /);
  });

  it("refuses a whole body over the limit, still arriving or already in", async () => {
    const ex = send("/chunks");
    await ex.response;
    await expect(ex.bytes(100_000)).rejects.toBeInstanceOf(UpstreamBodyTooLarge);
    const small = send("/json");
    await small.response;
    await new Promise((r) => setTimeout(r, 50));
    await expect(small.bytes(5)).rejects.toBeInstanceOf(UpstreamBodyTooLarge);
  });
});
