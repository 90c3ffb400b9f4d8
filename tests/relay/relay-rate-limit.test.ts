// Per-user model request limits (ModelRequestRateLimit*, as new-api enforces them): all requests
// and successful ones per N minutes, group overrides, 429 in the caller's protocol with
// `retry-after`. Options are changed through updateOption, as the settings page does, and take
// effect on the next request. One relay in this process (its limits in memory).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "m-limited";
const KEYS = [
  "ModelRequestRateLimitEnabled",
  "ModelRequestRateLimitCount",
  "ModelRequestRateLimitSuccessCount",
  "ModelRequestRateLimitDurationMinutes",
  "ModelRequestRateLimitGroup",
] as const;

let mock: OpenAIMock;
let relay: RelayServer;

const answer = async (r: Response) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), json: await r.json() });

const chat = (key: string) =>
  fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  }).then(answer);

const messages = (key: string) =>
  fetch(`${relay.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  }).then(answer);

const generate = (key: string) =>
  fetch(`${relay.url}/v1beta/models/${MODEL}:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  }).then(answer);

async function limits(o: { enabled: boolean; count?: number; success?: number; minutes?: number; groups?: object }) {
  await updateOption("ModelRequestRateLimitEnabled", String(o.enabled));
  await updateOption("ModelRequestRateLimitCount", String(o.count ?? 0));
  await updateOption("ModelRequestRateLimitSuccessCount", String(o.success ?? 1000));
  await updateOption("ModelRequestRateLimitDurationMinutes", String(o.minutes ?? 1));
  await updateOption("ModelRequestRateLimitGroup", JSON.stringify(o.groups ?? {}));
}

/** The seconds a 429 asks to wait: within the window, never 0. */
const expectRetryAfter = (value: string | null, minutes = 1) => {
  expect(value).toMatch(/^\d+$/);
  expect(Number(value)).toBeGreaterThanOrEqual(1);
  expect(Number(value)).toBeLessThanOrEqual(minutes * 60);
};

beforeAll(async () => {
  mock = await startOpenAIMock();
  relay = await startRelay("node");
  await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1 }));
});
afterAll(async () => {
  for (const key of [...KEYS, "ModelRatio"] as const) await updateOption(key, defaultRaw(key));
  await relay.close();
  await mock.close();
});
beforeEach(async () => {
  mock.reset();
  await clearRelayData();
  await seedChannel({ base_url: mock.url, models: MODEL, group: "default,vip" });
});

describe("the request limit (ModelRequestRateLimitCount)", () => {
  it("admits 2 a minute per user; the third gets an OpenAI-shaped 429 with retry-after, and reaches no upstream", async () => {
    await limits({ enabled: true, count: 2 });
    const u = await seedUser();
    expect((await chat(u.key)).status).toBe(200);
    expect((await chat(u.key)).status).toBe(200);
    const third = await chat(u.key);
    expect(third.status).toBe(429);
    expectRetryAfter(third.retryAfter);
    expect(third.json.error.message).toContain("您已达到总请求数限制：1分钟内最多请求2次，包括失败次数，请检查您的请求是否正确");
    expect(third.json.error.type).toBe("new_api_error");
    expect(mock.requests).toHaveLength(2);
    // Per user: another user's window is their own.
    const other = await seedUser();
    expect((await chat(other.key)).status).toBe(200);
  });

  it("is enforced the same through the Next route handlers (the web entry)", async () => {
    await limits({ enabled: true, count: 1 });
    const web = await startRelay("web");
    try {
      const u = await seedUser();
      const call = () =>
        fetch(`${web.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
        }).then(answer);
      expect((await call()).status).toBe(200);
      const refused = await call();
      expect(refused.status).toBe(429);
      expectRetryAfter(refused.retryAfter);
    } finally {
      await web.close();
    }
  });

  it("answers an Anthropic caller in Anthropic's shape, and a Gemini caller in Google's", async () => {
    await limits({ enabled: true, count: 2 });
    const u = await seedUser();
    expect((await messages(u.key)).status).toBe(200);
    expect((await messages(u.key)).status).toBe(200);
    const third = await messages(u.key);
    expect(third.status).toBe(429);
    expectRetryAfter(third.retryAfter);
    expect(third.json).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(third.json.error.message).toContain("您已达到总请求数限制：1分钟内最多请求2次");

    const g = await seedUser();
    expect((await generate(g.key)).status).toBe(200);
    expect((await generate(g.key)).status).toBe(200);
    const refused = await generate(g.key);
    expect(refused.status).toBe(429);
    expectRetryAfter(refused.retryAfter);
    expect(refused.json.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
  });

  it("counts failed requests too", async () => {
    await limits({ enabled: true, count: 2 });
    const u = await seedUser();
    mock.setBehaviour({ failStatus: 400 });
    expect((await chat(u.key)).status).toBe(400);
    expect((await chat(u.key)).status).toBe(400);
    mock.setBehaviour(null);
    expect((await chat(u.key)).status).toBe(429);
  });

  it("is replaced by the caller's group's pair in ModelRequestRateLimitGroup", async () => {
    await limits({ enabled: true, count: 3, groups: { vip: [1, 1000] } });
    const vip = await seedUser({ group: "vip" });
    expect((await chat(vip.key)).status).toBe(200);
    const refused = await chat(vip.key);
    expect(refused.status).toBe(429);
    expect(refused.json.error.message).toContain("1分钟内最多请求1次");
    const plain = await seedUser();
    for (let i = 0; i < 3; i++) expect((await chat(plain.key)).status).toBe(200);
    expect((await chat(plain.key)).status).toBe(429);
  });
});

describe("the success limit (ModelRequestRateLimitSuccessCount)", () => {
  it("counts only answers below 400: failures leave room, the third success is refused", async () => {
    await limits({ enabled: true, count: 0, success: 2 });
    const u = await seedUser();
    mock.setBehaviour({ failStatus: 400 });
    for (let i = 0; i < 3; i++) expect((await chat(u.key)).status).toBe(400);
    mock.setBehaviour(null);
    expect((await chat(u.key)).status).toBe(200);
    expect((await chat(u.key)).status).toBe(200);
    const refused = await chat(u.key);
    expect(refused.status).toBe(429);
    expectRetryAfter(refused.retryAfter);
    expect(refused.json.error.message).toContain("您已达到请求数限制：1分钟内最多请求2次");
    expect(mock.requests).toHaveLength(5);
  });
});

describe("with ModelRequestRateLimitEnabled off", () => {
  it("nothing is limited, whatever the numbers; switching it on applies at the next request", async () => {
    await limits({ enabled: false, count: 2, success: 2 });
    const u = await seedUser();
    for (let i = 0; i < 6; i++) expect((await chat(u.key)).status).toBe(200);
    await updateOption("ModelRequestRateLimitEnabled", "true");
    // The calls made while off were not counted: two more fit.
    expect((await chat(u.key)).status).toBe(200);
    expect((await chat(u.key)).status).toBe(200);
    expect((await chat(u.key)).status).toBe(429);
  });
});
