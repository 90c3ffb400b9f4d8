// The real server's HTTP surface without a browser: next-auth's credentials sign-in issues the
// same session cookie as /api/user/login, and the relay answers OpenAI-shaped on server.ts.
import { expect, test } from "./support";

test("next-auth credentials sign-in yields a working session", async ({ playwright, baseURL }) => {
  const api = await playwright.request.newContext({ baseURL });
  const csrf = await (await api.get("/api/auth/csrf")).json();
  expect(typeof csrf.csrfToken).toBe("string");
  const res = await api.post("/api/auth/callback/credentials", {
    form: { csrfToken: csrf.csrfToken, username: "root", password: "123456", json: "true" },
    maxRedirects: 0,
  });
  expect(res.status()).toBeLessThan(400);
  const cookies = await api.storageState();
  const session = cookies.cookies.find((c) => c.name === "qiao_session");
  expect(session?.httpOnly).toBe(true);
  const self = await api.get("/api/user/self", { headers: { "New-Api-User": "1" } });
  expect(self.status()).toBe(200);
  expect((await self.json()).data.username).toBe("root");
  // A wrong password gets no session.
  const other = await playwright.request.newContext({ baseURL });
  const csrf2 = await (await other.get("/api/auth/csrf")).json();
  await other.post("/api/auth/callback/credentials", {
    form: { csrfToken: csrf2.csrfToken, username: "root", password: "wrong-pass", json: "true" },
    maxRedirects: 0,
  });
  expect((await other.storageState()).cookies.find((c) => c.name === "qiao_session")).toBeUndefined();
  await api.dispose();
  await other.dispose();
});

test("the relay on the npm start server answers in OpenAI's shapes", async ({ playwright, baseURL }) => {
  const api = await playwright.request.newContext({ baseURL });
  const noKey = await api.post("/v1/chat/completions", { data: { model: "gpt-4o-mini", messages: [] } });
  expect(noKey.status()).toBe(401);
  expect((await noKey.json()).error.message).toContain("未提供令牌");
  const files = await api.get("/v1/files", { headers: { authorization: `Bearer sk-${"a".repeat(48)}` } });
  expect(files.status()).toBe(501);
  const preflight = await api.fetch("/v1/chat/completions", { method: "OPTIONS" });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()["access-control-allow-origin"]).toBe("*");
  await api.dispose();
});

// `npm start` runs the console (Next) and the relay workers as separate processes: a change made
// through the console must reach every relay worker at once, not after SYNC_FREQUENCY (60 s).
test("console changes reach the relay workers at once", async ({ playwright, baseURL }) => {
  const { startOpenAIMock } = await import("../mocks/openai-upstream");
  const upstream = await startOpenAIMock();
  const api = await playwright.request.newContext({ baseURL });
  try {
    const login = await api.post("/api/user/login", { data: { username: "root", password: "123456" } });
    expect(login.status()).toBe(200);
    const as = { "New-Api-User": "1" };
    const call = async (method: string, url: string, data?: unknown) => {
      const r = await api.fetch(url, { method, headers: as, data });
      const body = await r.json();
      expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
      return body.data;
    };
    const model = `e2e-ipc-${Date.now()}`;
    await call("POST", "/api/channel/", { name: model, type: 1, key: "sk-up", base_url: upstream.url, models: model, group: "default" });
    const channels = await call("GET", `/api/channel/search?keyword=${model}`);
    const channel = (channels.items ?? channels)[0];
    const token = await call("POST", "/api/token/", { name: model, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
    // Other specs share the server: add this model to the ratios rather than replace them.
    const listed: { key: string; value: string }[] = await call("GET", "/api/option/");
    const ratios = JSON.parse(listed.find((o) => o.key === "ModelRatio")?.value || "{}");
    await call("PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...ratios, [model]: 1 }) });
    const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
    // Several calls: the connections are spread over the relay workers, and each must know.
    const relayStatuses = async () => {
      const out: number[] = [];
      for (let i = 0; i < 6; i++) {
        const client = await playwright.request.newContext({ baseURL });
        const r = await client.post("/v1/chat/completions", {
          headers: { authorization: `Bearer ${key}` },
          data: { model, messages: [{ role: "user", content: "hi" }] },
        });
        out.push(r.status());
        await client.dispose();
      }
      return out;
    };
    expect(await relayStatuses()).toEqual([200, 200, 200, 200, 200, 200]);

    await call("PUT", "/api/channel/", { id: channel.id, status: 2 });
    // No enabled channel serves the model any more: 404, as a vendor answers an unknown model.
    expect(await relayStatuses()).toEqual([404, 404, 404, 404, 404, 404]);

    await call("PUT", "/api/channel/", { id: channel.id, status: 1 });
    await call("PUT", "/api/option/", { key: "ModelPrice", value: JSON.stringify({ [model]: 0.002 }) });
    expect(await relayStatuses()).toEqual([200, 200, 200, 200, 200, 200]);
    // Billed per call at the new price (0.002 × 500 000 quota per unit), in every worker.
    await expect
      .poll(async () => {
        const logs = await call("GET", `/api/log/self/?p=0&page_size=50&model_name=${model}`);
        return (logs.items ?? logs).filter((l: { quota: number }) => l.quota === 1000).length;
      })
      .toBe(6);
  } finally {
    await api.dispose();
    await upstream.close();
  }
});
