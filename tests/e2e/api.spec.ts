// The real server's HTTP surface without a browser: next-auth's credentials sign-in issues the
// same session cookie as /api/user/login, and the relay answers OpenAI-shaped on server.ts.
import { expect, test } from "@playwright/test";

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
  await other.post("/api/auth/callback/credentials", { form: { csrfToken: csrf2.csrfToken, username: "root", password: "wrong-pass", json: "true" }, maxRedirects: 0 });
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
