// The client address: believed from a relay worker of this boot only (npm start's hand-off to the
// console carries a per-boot proof), never from a header a client sends itself, as it could under
// a bare `next start` or a serverless host.
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as login from "@/app/api/user/login/route";
import { rateLimitStore } from "@/lib/auth/rate-limit";
import { env } from "@/lib/env";
import { CLIENT_IP_HEADER, CLIENT_IP_PROOF_HEADER } from "@/lib/net/client-ip";
import { ConsoleProxy } from "@/lib/server/proxy";
import { call } from "@/tests/helpers/api";
import { clearRelayData, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const failedLogin = (i: number) => ({ username: `nobody-${i}`, password: "wrong-password" });

describe("under the console's own route handlers (next start, or npm start's console)", () => {
  it("a client-chosen x-qiao-client-ip does not escape the per-IP login limit", async () => {
    await rateLimitStore().reset("login:ip:unknown");
    const statuses: number[] = [];
    for (let i = 0; i <= env.CRITICAL_RATE_LIMIT; i++) {
      // The wrong-password lock of the address (twice LOGIN_FAILURE_LIMIT) would answer first:
      // cleared each time, so this counts the per-IP call limit alone.
      await rateLimitStore().reset("login:fail:ip:unknown");
      const spoofed = { [CLIENT_IP_HEADER]: `198.18.7.${i}`, [CLIENT_IP_PROOF_HEADER]: "a-guess" };
      statuses.push((await call(login.POST, "POST", "/api/user/login", { body: failedLogin(i), ip: null, headers: spoofed })).status);
    }
    // Every attempt counted against one unknown address, none against the addresses claimed.
    expect(statuses.slice(0, env.CRITICAL_RATE_LIMIT).every((s) => s === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(await rateLimitStore().count("login:ip:198.18.7.0", env.CRITICAL_RATE_LIMIT_DURATION)).toBe(0);
  });
});

describe("under the route-handler relay entry without npm start in front", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;
  beforeAll(async () => {
    mock = await startOpenAIMock();
    closers.push(() => mock.close());
    relay = await startRelay("web", null);
    closers.push(() => relay.close());
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
  });

  it("a key's IP allow-list is not passed by naming an allowed address", async () => {
    const u = await seedUser({ token: { allow_ips: "203.0.113.9" } });
    const res = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${u.key}`,
        "content-type": "application/json",
        [CLIENT_IP_HEADER]: "203.0.113.9",
        [CLIENT_IP_PROOF_HEADER]: "a-guess",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.error.code).toBe("ip_not_allowed");
    expect(body.error.message).toContain("unknown");
    expect(mock.requests.length).toBe(0);
  });
});

describe("through npm start's path (relay worker → console socket)", () => {
  it("the address the worker resolved reaches the console; the client's own header does not", async () => {
    // The console: Next's route handler behind a Unix socket, as lib/server/console.ts serves it.
    const socket = path.join(os.tmpdir(), `qiao-client-ip-test-${process.pid}.sock`);
    const consoleServer = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const answer = await login.POST(
        new Request(`http://localhost${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
      );
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(await answer.text());
    });
    await new Promise<void>((r) => consoleServer.listen(socket, r));
    closers.push(() => new Promise((r) => consoleServer.close(() => r())));
    const proxy = new ConsoleProxy();
    proxy.setTarget(socket);
    // The worker: it resolved 192.0.2.44 from the socket (as relay-worker.ts does).
    const front = http.createServer((req, res) => void proxy.forward(req, res, "192.0.2.44"));
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => (front.closeAllConnections(), front.close(() => r()))));

    await rateLimitStore().reset("login:ip:192.0.2.44");
    const res = await fetch(`http://127.0.0.1:${(front.address() as AddressInfo).port}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_IP_HEADER]: "198.18.9.9", [CLIENT_IP_PROOF_HEADER]: "a-guess" },
      body: JSON.stringify(failedLogin(99)),
    });
    expect(res.status).toBe(400);
    const window = env.CRITICAL_RATE_LIMIT_DURATION;
    expect(await rateLimitStore().count("login:ip:192.0.2.44", window)).toBe(1);
    expect(await rateLimitStore().count("login:ip:198.18.9.9", window)).toBe(0);
  });
});
