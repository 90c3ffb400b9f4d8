// What guards the password: Turnstile on every sign-in path (/api/user/login and next-auth's
// credentials, against a mock siteverify on loopback), and the per-account failure limit on the
// password change as on sign-in.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Verify = { secret: string; response: string; remoteip: string | null };
const verifies: Verify[] = [];
const GOOD_TOKEN = "turnstile-pass";
const SECRET = "turnstile-secret-for-tests";

// lib/env reads TURNSTILE_VERIFY_URL once, so the mock listens before anything imports it.
const siteverify = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const form = new URLSearchParams(body);
    const seen = { secret: form.get("secret") ?? "", response: form.get("response") ?? "", remoteip: form.get("remoteip") };
    verifies.push(seen);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ success: seen.secret === SECRET && seen.response === GOOD_TOKEN }));
  });
});
await new Promise<void>((r) => siteverify.listen(0, "127.0.0.1", r));
process.env.TURNSTILE_VERIFY_URL = `http://127.0.0.1:${(siteverify.address() as AddressInfo).port}/siteverify`;

const { call, createUser } = await import("@/tests/helpers/api");
const login = await import("@/app/api/user/login/route");
const self = await import("@/app/api/user/self/route");
const { authOptions } = await import("@/lib/users/next-auth");
const { updateOption } = await import("@/lib/options");
const { clientIpHeaders } = await import("@/lib/net/client-ip");
const { env } = await import("@/lib/env");
const { TURNSTILE_FAILED } = await import("@/lib/auth/turnstile");
const { TOO_MANY_FAILURES } = await import("@/lib/users/auth");

afterAll(async () => {
  await new Promise<void>((r) => siteverify.close(() => r()));
});

/** next-auth's credentials provider, as NextAuth calls it for POST /api/auth/callback/credentials. */
function nextAuthSignIn(credentials: Record<string, string>, query: Record<string, string> = {}) {
  const provider = authOptions().providers[0] as unknown as {
    options: { authorize(c: Record<string, string>, req: unknown): Promise<{ id: string } | null> };
  };
  const headers = { "content-type": "application/x-www-form-urlencoded", ...clientIpHeaders("192.0.2.61") };
  return provider.options.authorize(credentials, { body: credentials, query, headers, method: "POST" });
}

describe("Turnstile on", () => {
  beforeAll(async () => {
    await updateOption("TurnstileSiteKey", "turnstile-site-key");
    await updateOption("TurnstileSecretKey", SECRET);
    await updateOption("TurnstileCheckEnabled", "true");
  });
  afterAll(async () => {
    await updateOption("TurnstileCheckEnabled", "false");
  });

  it("next-auth's credentials sign-in demands a token that verifies", async () => {
    const u = await createUser({ username: "ts-nextauth", password: "password123" });
    verifies.length = 0;
    expect(await nextAuthSignIn({ username: u.username, password: "password123" })).toBeNull();
    expect(verifies).toHaveLength(0);
    expect(await nextAuthSignIn({ username: u.username, password: "password123", turnstile: "forged" })).toBeNull();
    const signedIn = await nextAuthSignIn({ username: u.username, password: "password123", turnstile: GOOD_TOKEN });
    expect(signedIn?.id).toBe(String(u.id));
    const viaQuery = await nextAuthSignIn({ username: u.username, password: "password123" }, { turnstile: GOOD_TOKEN });
    expect(viaQuery?.id).toBe(String(u.id));
    expect(verifies.map((v) => v.response)).toEqual(["forged", GOOD_TOKEN, GOOD_TOKEN]);
    expect(verifies.every((v) => v.secret === SECRET && v.remoteip === "192.0.2.61")).toBe(true);
  });

  it("/api/user/login goes through the same check", async () => {
    const u = await createUser({ username: "ts-api", password: "password123" });
    const body = { username: u.username, password: "password123" };
    const none = await call(login.POST, "POST", "/api/user/login", { body, ip: "192.0.2.62" });
    expect(none.json).toEqual({ success: false, message: TURNSTILE_FAILED });
    const forged = await call(login.POST, "POST", "/api/user/login?turnstile=forged", { body, ip: "192.0.2.62" });
    expect(forged.json).toEqual({ success: false, message: TURNSTILE_FAILED });
    const good = await call(login.POST, "POST", `/api/user/login?turnstile=${GOOD_TOKEN}`, { body, ip: "192.0.2.62" });
    expect(good.json.success).toBe(true);
  });
});

describe("changing the password needs the current one, with the sign-in failure limit", () => {
  it("locks the account after LOGIN_FAILURE_LIMIT wrong guesses, for the change and for sign-in", async () => {
    const u = await createUser({ username: "guessed", password: "password123" });
    const change = (original: string) =>
      call(self.PUT, "PUT", "/api/user/self", { as: u, body: { password: "newpassword1", original_password: original } });
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT; i++) {
      const wrong = await change(`guess-${i}-x`);
      expect(wrong.json).toEqual({ success: false, message: "原密码错误" });
    }
    // Now even the right password is refused for a while, here and at sign-in.
    const locked = await change("password123");
    expect(locked.status).toBe(429);
    expect(locked.json).toEqual({ success: false, message: TOO_MANY_FAILURES });
    const signIn = await call(login.POST, "POST", "/api/user/login", {
      body: { username: "guessed", password: "password123" },
      ip: "192.0.2.63",
    });
    expect(signIn.status).toBe(429);
    expect(signIn.json.message).toBe(TOO_MANY_FAILURES);
    const { clearPasswordFailures } = await import("@/lib/users/auth");
    await clearPasswordFailures(u.id);
    expect((await change("password123")).json.success).toBe(true);
  });
});
