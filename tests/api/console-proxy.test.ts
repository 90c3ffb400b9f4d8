// The relay workers' hand-off to the console process: real sockets on both sides.
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "@/lib/net/client-ip";
import { ConsoleProxy } from "@/lib/server/proxy";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function listen(server: http.Server, where: string | number): Promise<void> {
  return new Promise((resolve) => server.listen(where, resolve));
}

/** The "console": echoes what it received, sets two cookies. */
async function startConsole() {
  const socket = path.join(os.tmpdir(), `qiao-proxy-test-${process.pid}-${Date.now()}.sock`);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("set-cookie", ["a=1; Path=/", "b=2; Path=/; HttpOnly"]);
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json", "keep-alive": "timeout=5" });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  await listen(server, socket);
  closers.push(() => new Promise((r) => server.close(() => r())));
  return socket;
}

async function startFront(proxy: ConsoleProxy) {
  const server = http.createServer((req, res) => void proxy.forward(req, res, "203.0.113.7"));
  await listen(server, 0);
  server.keepAliveTimeout = 1000;
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A console that refuses any body at once (as /api does one over its cap) and reads the rest. */
async function startRefusingConsole() {
  const socket = path.join(os.tmpdir(), `qiao-proxy-test-refusing-${process.pid}-${Date.now()}.sock`);
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(413, { "content-type": "application/json" });
    res.end(JSON.stringify({ success: false, url: req.url }));
  });
  await listen(server, socket);
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return socket;
}

/** POSTs `total` bytes with chunked encoding on `agent`; resolves with the status and body. */
function postChunked(agent: http.Agent, url: string, total: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

describe("console proxy", () => {
  it("keeps the client's connection working when the console answers before reading the whole body", async () => {
    const proxy = new ConsoleProxy();
    proxy.setTarget(await startRefusingConsole());
    // A front server with Node's default keep-alive timer (5 s), as the relay workers run.
    const server = http.createServer((req, res) => void proxy.forward(req, res, "203.0.113.7"));
    await listen(server, 0);
    closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
    const front = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    closers.push(async () => agent.destroy());
    const first = await postChunked(agent, `${front}/api/user/login`, 2 * 1024 * 1024);
    expect(first.status).toBe(413);
    // The client's next request is answered (it used to stall, then fail with a reset).
    const second = await postChunked(agent, `${front}/api/status`, 0);
    expect(second.status).toBe(413);
    expect(JSON.parse(second.body).url).toBe("/api/status");
  });

  it("passes method, path, query and body, sets the client address, and returns status and every cookie", async () => {
    const proxy = new ConsoleProxy();
    proxy.setTarget(await startConsole());
    const front = await startFront(proxy);
    const res = await fetch(`${front}/api/user/login?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_IP_HEADER]: "6.6.6.6", "x-custom": "kept" },
      body: JSON.stringify({ username: "root" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/; HttpOnly"]);
    // Hop-by-hop headers describe the console hop only (the front server sets its own).
    expect(res.headers.get("keep-alive")).not.toBe("timeout=5");
    const seen = await res.json();
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/api/user/login?x=1");
    expect(seen.body).toBe('{"username":"root"}');
    // The client cannot choose the address the console trusts.
    expect(seen.headers[CLIENT_IP_HEADER]).toBe("203.0.113.7");
    expect(seen.headers["x-custom"]).toBe("kept");
    const missing = await fetch(`${front}/missing`);
    expect(missing.status).toBe(404);
  });

  it("holds requests while the console starts, then answers them", async () => {
    const proxy = new ConsoleProxy();
    const front = await startFront(proxy);
    const socket = await startConsole();
    const pending = fetch(`${front}/login`);
    setTimeout(() => proxy.setTarget(socket), 200);
    const res = await pending;
    expect(res.status).toBe(200);
    expect((await res.json()).url).toBe("/login");
  });

  it("holds requests again while a console that went away restarts", async () => {
    const proxy = new ConsoleProxy();
    const socket = await startConsole();
    proxy.setTarget(socket);
    const front = await startFront(proxy);
    expect((await fetch(`${front}/a`)).status).toBe(200);
    proxy.clearTarget();
    let answered = false;
    const pending = fetch(`${front}/b`).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 150));
    expect(answered).toBe(false);
    proxy.setTarget(socket);
    const res = await pending;
    expect((await res.json()).url).toBe("/b");
  });

  it("answers 503 when the console does not come up in time, and 502 when it is gone", async () => {
    const slow = new ConsoleProxy(100);
    const front = await startFront(slow);
    const res = await fetch(`${front}/`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect((await res.json()).success).toBe(false);

    const gone = new ConsoleProxy();
    gone.setTarget(path.join(os.tmpdir(), `qiao-proxy-test-nobody-${process.pid}.sock`));
    const front2 = await startFront(gone);
    expect((await fetch(`${front2}/`)).status).toBe(502);
  });
});
