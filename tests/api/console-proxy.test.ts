// The relay workers' hand-off to the console process: real sockets on both sides.
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
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

/** The Flight payload Next 16 sends for a page that does not exist (a prefetch of /reset). */
const NOT_FOUND_FLIGHT =
  '2:[["children",{"s":"__PAGE__"}]]\n1:[["children",{"s":"/_not-found","c":"$Q2"}]]\n0:{"q":"","i":false,"S":false}\n';
const NOT_FOUND_HTML = "<!DOCTYPE html><html><body><h1>404</h1><p>页面不存在</p></body></html>";

/**
 * A console that answers like Next 16 does: RSC requests (`rsc: 1`) get Flight, gzipped and
 * chunked, with Next's no-store cache header; /reset does not exist (404), /login does.
 */
async function startNextLikeConsole() {
  const socket = path.join(os.tmpdir(), `qiao-proxy-next-${process.pid}-${Date.now()}.sock`);
  const seen: string[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    seen.push(req.url!);
    const found = req.url!.startsWith("/login");
    const rsc = req.headers.rsc === "1";
    const body = zlib.gzipSync(rsc ? (found ? '0:{"ok":true}\n' : NOT_FOUND_FLIGHT) : NOT_FOUND_HTML);
    res.writeHead(found ? 200 : 404, {
      "cache-control": "private, no-cache, no-store, max-age=0, must-revalidate",
      vary: "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept-Encoding",
      "content-type": rsc ? "text/x-component" : "text/html; charset=utf-8",
      "content-encoding": "gzip",
    });
    // Next flushes the gzip header on its own, then the rest.
    res.write(body.subarray(0, 10));
    setImmediate(() => res.end(body.subarray(10)));
  });
  server.on("connection", () => connections++);
  await listen(server, socket);
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { socket, seen, connections: () => connections };
}

async function startFront(proxy: ConsoleProxy, hooks: { onRequest?: () => void; onClose?: () => void } = {}) {
  let connections = 0;
  const server = http.createServer((req, res) => {
    if (hooks.onClose) res.on("close", hooks.onClose);
    void proxy.forward(req, res, "203.0.113.7");
    hooks.onRequest?.();
  });
  server.on("connection", () => connections++);
  await listen(server, 0);
  // Above 1 s: Node's client does not reuse a connection whose server announces `timeout=1`.
  server.keepAliveTimeout = 4000;
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(url, { connections: () => connections });
}

/** Headers Chromium sends with a Next 16 link prefetch (copied from a real page load). */
const CHROMIUM_PREFETCH = {
  accept: "*/*",
  "accept-encoding": "gzip, deflate, br, zstd",
  "accept-language": "en-US,en;q=0.9",
  "next-router-prefetch": "1",
  "next-router-segment-prefetch": "/_tree",
  "next-url": "/login",
  rsc: "1",
  "sec-ch-ua": '"Not:A-Brand";v="8", "Chromium";v="156"',
  "sec-ch-ua-mobile": "?0",
  "sec-ch-ua-platform": '"Linux"',
  "sec-fetch-dest": "empty",
  "sec-fetch-mode": "cors",
  "sec-fetch-site": "same-origin",
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
};

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** One GET over `agent` (kept alive, as a browser does), the body read raw (still encoded). */
function get(base: string, target: string, headers: Record<string, string>, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${target}`, { headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
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

  // Next's router drops a prefetch answer that is not a 2xx without reading or cancelling its
  // body, and Chromium keeps an unread no-store answer pending until the page goes away: the
  // login page (prefetching /reset) and the home page (/pricing) never reached network idle.
  it("answers a prefetch of a missing page with its status and headers but no body, on a connection that stays usable", async () => {
    const next = await startNextLikeConsole();
    const proxy = new ConsoleProxy();
    proxy.setTarget(next.socket);
    const front = await startFront(proxy);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    closers.push(async () => agent.destroy());

    const prefetch = await get(front, "/reset?_rsc=_H_fFy2_Q06N8BA7", CHROMIUM_PREFETCH, agent);
    expect(prefetch.status).toBe(404);
    expect(prefetch.body.length).toBe(0);
    expect(prefetch.headers["content-length"]).toBe("0");
    expect(prefetch.headers["content-encoding"]).toBeUndefined();
    expect(prefetch.headers["transfer-encoding"]).toBeUndefined();
    expect(prefetch.headers["cache-control"]).toBe("private, no-cache, no-store, max-age=0, must-revalidate");
    expect(prefetch.headers["content-type"]).toBe("text/x-component");

    // A prefetch of a page that exists keeps its Flight body.
    const found = await get(front, "/login?_rsc=_H_fFy2_Q06N8BA7", CHROMIUM_PREFETCH, agent);
    expect(found.status).toBe(200);
    expect(zlib.gunzipSync(found.body).toString()).toBe('0:{"ok":true}\n');

    // Opening the missing page still shows the not-found page, on the same kept-alive connection.
    const page = await get(front, "/reset", { accept: "text/html", "accept-encoding": "gzip" }, agent);
    expect(page.status).toBe(404);
    expect(zlib.gunzipSync(page.body).toString()).toBe(NOT_FOUND_HTML);
    expect(front.connections()).toBe(1);
    expect(next.seen).toEqual(["/reset?_rsc=_H_fFy2_Q06N8BA7", "/login?_rsc=_H_fFy2_Q06N8BA7", "/reset"]);
  });

  it("does not hand the console a request whose client left while the console was starting", async () => {
    const next = await startNextLikeConsole();
    const proxy = new ConsoleProxy();
    let held!: () => void;
    let closed!: () => void;
    const requestHeld = new Promise<void>((r) => (held = r));
    const clientLeft = new Promise<void>((r) => (closed = r));
    const front = await startFront(proxy, { onRequest: () => held(), onClose: () => closed() });
    const controller = new AbortController();
    const abandoned = fetch(`${front}/login?first`, { signal: controller.signal }).catch((e: Error) => e.name);
    await requestHeld;
    controller.abort();
    expect(await abandoned).toBe("AbortError");
    await clientLeft;
    proxy.setTarget(next.socket);
    const res = await fetch(`${front}/login?second`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(next.seen).toEqual(["/login?second"]);
    // Nor a connection: a request opened for the gone client would hold a console socket until
    // the console's header timeout cut it.
    expect(next.connections()).toBe(1);
  });
});
