// Sessions and keys on the real `npm start` server (console and relay workers in separate
// processes): a session ended by a password change cannot spend through the playground on any
// relay worker, and a user who deletes their account stops their keys in every worker at once.
import { type APIRequestContext, expect, test } from "@playwright/test";
import { uniqueName } from "./support";

test("a password change and a self-deletion hold in every relay worker at once", async ({ playwright, baseURL }) => {
  const { startOpenAIMock } = await import("../mocks/openai-upstream");
  const upstream = await startOpenAIMock();
  const contexts: APIRequestContext[] = [];
  const context = async () => {
    const c = await playwright.request.newContext({ baseURL });
    contexts.push(c);
    return c;
  };
  const ok = async (api: APIRequestContext, userId: number, method: string, url: string, data?: unknown) => {
    const r = await api.fetch(url, { method, headers: { "New-Api-User": String(userId) }, data });
    const body = await r.json();
    expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
    return body.data;
  };
  try {
    const root = await context();
    expect((await root.post("/api/user/login", { data: { username: "root", password: "123456" } })).status()).toBe(200);
    const model = uniqueName("e2e-sess-");
    await ok(root, 1, "POST", "/api/channel/", {
      name: model,
      type: 1,
      key: "sk-up",
      base_url: upstream.url,
      models: model,
      group: "default",
    });
    // Other specs share the server: add this model to the ratios rather than replace them.
    const listed: { key: string; value: string }[] = await ok(root, 1, "GET", "/api/option/");
    const ratios = JSON.parse(listed.find((o) => o.key === "ModelRatio")?.value || "{}");
    await ok(root, 1, "PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...ratios, [model]: 1 }) });
    const username = uniqueName("sess");
    await ok(root, 1, "POST", "/api/user/", { username, password: "password123" });
    const users = await ok(root, 1, "GET", `/api/user/search?keyword=${username}`);
    const userId: number = (users.items ?? users)[0].id;
    await ok(root, 1, "PUT", "/api/user/", { id: userId, quota: 5_000_000 });

    // Two sessions of the same user; the second changes the password.
    const kept = await context();
    const changer = await context();
    for (const c of [kept, changer])
      expect((await c.post("/api/user/login", { data: { username, password: "password123" } })).status()).toBe(200);
    const token = await ok(changer, userId, "POST", "/api/token/", {
      name: model,
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
    const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
    const chat = { model, messages: [{ role: "user", content: "hi" }] };

    // Several connections, spread over the relay workers, each warming its caches.
    const statuses = async (call: (c: APIRequestContext) => Promise<number>) => {
      const out: number[] = [];
      for (let i = 0; i < 6; i++) {
        const c = await playwright.request.newContext({ baseURL, storageState: await kept.storageState() });
        out.push(await call(c));
        await c.dispose();
      }
      return out;
    };
    const viaKey = (c: APIRequestContext) =>
      c.post("/v1/chat/completions", { headers: { authorization: `Bearer ${key}` }, data: chat }).then((r) => r.status());
    const viaPlayground = (c: APIRequestContext) =>
      c.post("/pg/chat/completions", { headers: { "New-Api-User": String(userId) }, data: chat }).then((r) => r.status());
    expect(await statuses(viaPlayground)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await statuses(viaKey)).toEqual([200, 200, 200, 200, 200, 200]);

    await ok(changer, userId, "PUT", "/api/user/self", { password: "newpassword1", original_password: "password123" });
    const upstreamCalls = upstream.requests.length;
    // The old session reaches no upstream (nothing is spent); the quota to the unit is checked by
    // tests/api/sessions.test.ts, where no lease can close in between.
    expect(await statuses(viaPlayground)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(upstream.requests.length).toBe(upstreamCalls);

    await ok(changer, userId, "DELETE", "/api/user/self");
    expect(await statuses(viaKey)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(upstream.requests.length).toBe(upstreamCalls);
  } finally {
    for (const c of contexts) await c.dispose();
    await upstream.close();
  }
});
