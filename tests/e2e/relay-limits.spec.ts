// Key limits under the real `npm start` (issue 26): two relay worker processes without Redis, whose
// counters the primary keeps. A burst spread over both workers admits exactly the key's limit.
import Database from "better-sqlite3";
import path from "node:path";
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { type PrivateServer, startPrivateServer } from "./private-server";
import { expect, test } from "./support";

let server: PrivateServer;
let upstream: OpenAIMock;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  upstream = await startOpenAIMock();
  server = await startPrivateServer({ RELAY_WORKERS: "2" });
});
test.afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

test("50 concurrent requests on a 10-rpm key admit exactly 10 across two relay workers", async ({ playwright }) => {
  const api = await playwright.request.newContext({ baseURL: server.baseURL, extraHTTPHeaders: { "New-Api-User": "1" } });
  const call = async (method: string, url: string, data?: unknown) => {
    const body = await (await api.fetch(url, { method, data })).json();
    expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
    return body.data;
  };
  await call("POST", "/api/user/login", { username: "root", password: "123456" });
  const model = "e2e-key-limits";
  await call("POST", "/api/channel/", { name: model, type: 1, key: "sk-up", base_url: upstream.url, models: model, group: "default" });
  await call("PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ [model]: 1 }) });
  const token = await call("POST", "/api/token/", { name: model, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  // The key's limit, written before its first call (the relay caches a key with its limits).
  const db = new Database(path.join(server.dataDir, "qiao.db"));
  db.pragma("busy_timeout = 10000");
  db.prepare("UPDATE tokens SET rpm_limit = 10 WHERE id = ?").run(token.id);
  db.close();

  // Separate connections, so the primary hands them to both workers.
  const statuses = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const r = await fetch(`${server.baseURL}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", connection: "close" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });
      await r.arrayBuffer();
      return { status: r.status, limit: r.headers.get("x-ratelimit-limit-requests") };
    }),
  );
  expect(statuses.filter((s) => s.status === 200)).toHaveLength(10);
  expect(statuses.filter((s) => s.status === 429)).toHaveLength(40);
  expect(new Set(statuses.map((s) => s.limit))).toEqual(new Set(["10"]));
  expect(upstream.requests).toHaveLength(10);
  await api.dispose();
});
