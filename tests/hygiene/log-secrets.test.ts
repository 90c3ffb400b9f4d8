// The server's log never prints a credential: a real `npm start` at LOG_LEVEL=debug, driven with
// a relay key in each place a caller puts one (Authorization, x-api-key, x-goog-api-key, ?key=), a
// wrong key, a password sign-in and its session cookie (a console call and the playground), a
// wrong password, and a channel whose vendor refuses its key and echoes it back. Then none of
// those secrets is anywhere in what the server printed; and each relay call has its one
// `relay call` line, with the fields docs/logs.md lists.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/auth/password";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { killServer, type Server, startServer } from "@/tests/helpers/instance";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";

const GOOD = "m-good";
const REFUSED = "m-refused";
const HI = [{ role: "user", content: "hi" }];
const secretText = (prefix: string) => `${prefix}${randomBytes(18).toString("hex")}`;

async function seed(t: TestDatabase, mockUrl: string, channelKey: string, password: string) {
  await t.db.option.createMany({
    data: [
      { key: "ModelRatio", value: JSON.stringify({ [GOOD]: 1, [REFUSED]: 1 }) },
      { key: "CompletionRatio", value: JSON.stringify({ [GOOD]: 1, [REFUSED]: 1 }) },
      { key: "RetryTimes", value: "0" },
    ],
  });
  const user = await t.db.user.create({ data: { username: "hygiene", password: await hashPassword(password), quota: 50_000_000n } });
  const key = generateTokenKey();
  const token = await t.db.token.create({
    data: {
      user_id: user.id,
      key_hash: hashTokenKey(key),
      key_enc: seal(key),
      key_hint: tokenKeyHint(key),
      name: "k",
      remain_quota: 40_000_000n,
      unlimited_quota: false,
      expired_time: -1,
    },
  });
  const channels: Record<string, number> = {};
  for (const [model, channelSecret] of [
    [GOOD, "sk-upstream-fine"],
    [REFUSED, channelKey],
  ] as const) {
    const channel = await t.db.channel.create({
      data: { type: 1, name: model, key: seal(channelSecret), base_url: mockUrl, models: model, group: "default", auto_ban: 0 },
    });
    channels[model] = channel.id;
    await t.db.ability.createMany({
      data: abilityRowsFor({ id: channel.id, models: model, group: "default", priority: 0, weight: 0, status: 1 }),
    });
  }
  return { userId: user.id, tokenId: token.id, key: `sk-${key}`, channels };
}

describe("the server log of a real npm start at LOG_LEVEL=debug", () => {
  let t: TestDatabase;
  let mock: OpenAIMock;
  let server: Server | undefined;
  let caller: Awaited<ReturnType<typeof seed>>;
  const channelKey = secretText("sk-chan");
  const password = secretText("Pw-");
  const wrongPassword = secretText("Pw-wrong-");
  const wrongKey = `sk-${generateTokenKey()}`;

  beforeAll(async () => {
    t = await createTestDatabase("sqlite");
    mock = await startOpenAIMock({ rejectedKeys: new Set([channelKey]) });
    caller = await seed(t, mock.url, channelKey, password);
    server = await startServer(t, { LOG_LEVEL: "debug" });
  }, 600_000);

  afterAll(async () => {
    await killServer(server);
    await mock?.close();
    await t?.drop();
  });

  it("prints no key, cookie or password, whatever the calls carried", async () => {
    const s = server!;
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${s.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const gemini = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };

    // The relay key, in each place a caller puts it.
    expect((await post("/v1/chat/completions", { authorization: `Bearer ${caller.key}` }, { model: GOOD, messages: HI })).status).toBe(200);
    const streamed = await post(
      "/v1/chat/completions",
      { authorization: `Bearer ${caller.key}` },
      { model: GOOD, messages: HI, stream: true },
    );
    expect(streamed.status).toBe(200);
    await streamed.text();
    expect((await post("/v1/messages", { "x-api-key": caller.key }, { model: GOOD, max_tokens: 20, messages: HI })).status).toBe(200);
    expect((await post(`/v1beta/models/${GOOD}:generateContent?key=${caller.key}`, {}, gemini)).status).toBe(200);
    expect((await post(`/v1beta/models/${GOOD}:generateContent`, { "x-goog-api-key": caller.key }, gemini)).status).toBe(200);
    // A wrong key, in a header and in the query.
    expect((await post("/v1/chat/completions", { authorization: `Bearer ${wrongKey}` }, { model: GOOD, messages: HI })).status).toBe(401);
    expect((await post(`/v1beta/models/${GOOD}:generateContent?key=${wrongKey}`, {}, gemini)).status).toBe(401);
    // A channel whose vendor refuses its key, echoing it in the error text.
    const refused = await post("/v1/chat/completions", { authorization: `Bearer ${caller.key}` }, { model: REFUSED, messages: HI });
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain(channelKey);

    // A wrong password, then the right one; the session cookie on a console call and the playground.
    expect((await post("/api/user/login", {}, { username: "hygiene", password: wrongPassword })).status).toBeLessThan(500);
    const login = await post("/api/user/login", {}, { username: "hygiene", password });
    expect(await login.json()).toMatchObject({ success: true });
    const cookie = login.headers.getSetCookie().map((c) => c.split(";", 1)[0]!);
    expect(cookie.join("; ")).toMatch(/^qiao_session=.{20,}/);
    const session = { cookie: cookie.join("; "), "new-api-user": String(caller.userId) };
    const self = await fetch(`${s.url}/api/user/self`, { headers: session });
    expect(await self.json()).toMatchObject({ success: true, data: { username: "hygiene" } });
    expect((await post("/pg/chat/completions", session, { model: GOOD, messages: HI })).status).toBe(200);

    // The call lines are written asynchronously: wait for the last call's.
    await expect
      .poll(
        () =>
          s
            .output()
            .split("\n")
            .filter((l) => l.includes('"msg":"relay call"')).length,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(9);
    const output = s.output();
    const cookieValues = cookie.map((c) => c.slice(c.indexOf("=") + 1));
    for (const secret of [
      caller.key,
      caller.key.slice(3),
      wrongKey,
      wrongKey.slice(3),
      channelKey,
      password,
      wrongPassword,
      ...cookieValues,
    ]) {
      expect(output.includes(secret), `the server printed a secret (${secret.slice(0, 6)}…)`).toBe(false);
    }
  });

  it("writes one `relay call` line per call with who, where, what and how long", async () => {
    const s = server!;
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${caller.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: GOOD, messages: HI, stream: true }),
    });
    const requestId = res.headers.get("x-request-id")!;
    await res.text();
    const lineOf = () =>
      s
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{") && l.includes(requestId))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await expect.poll(() => lineOf().length, { timeout: 10_000 }).toBe(1);
    expect(lineOf()[0]).toMatchObject({
      level: "info",
      msg: "relay call",
      role: "relay",
      component: "relay",
      requestId,
      userId: caller.userId,
      tokenId: caller.tokenId,
      channelId: caller.channels[GOOD],
      model: GOOD,
      status: 200,
      stream: true,
      path: "/v1/chat/completions",
      ms: expect.any(Number),
      frtMs: expect.any(Number),
      pid: expect.any(Number),
      instance: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });
});
