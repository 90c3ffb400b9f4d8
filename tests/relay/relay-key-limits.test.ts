// Key, user and model limits through the real relay (issue 26): exact admission under a burst,
// in this process, in two processes counted by their primary, and in two processes on Redis; TPM
// reserved from the estimate and corrected to the real tokens; concurrency released on every end;
// a daily budget, seeded from the logs after a restart; 429s in each caller's protocol with
// retry-after and OpenAI's x-ratelimit headers; a refusal moves no quota; Redis down still serves.
import { randomInt } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { createClient } from "redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { resetLocalLimits } from "@/lib/limits/engine";
import { keyLimitUsage } from "@/lib/limits/usage";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { limitsServer } from "@/lib/server/limits-ipc";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, type RelayServer, seedChannel, seedUser, settleAll, startRelay } from "@/tests/helpers/relay";
import { testRedisUrl } from "@/tests/helpers/redis";

const REDIS_URL = testRedisUrl(0);
const MODEL = "m-key-limits";
let mock: OpenAIMock;
let relay: RelayServer;

type Limits = { rpm_limit?: number; tpm_limit?: number; concurrency_limit?: number; budget_quota?: bigint; budget_period?: string };

/** A user with a key carrying `limits`; `unique`: ids no other run uses (the Redis keys are shared). */
async function limitedKey(limits: Limits, unique = false) {
  const u = await seedUser();
  const db = await getDb();
  let tokenId = u.tokenId;
  if (unique) {
    tokenId = randomInt(1_000_000_000, 2_000_000_000);
    await db.token.update({ where: { id: u.tokenId }, data: { id: tokenId } });
  }
  await db.token.update({ where: { id: tokenId }, data: limits });
  const columns = async () =>
    db.token.findUniqueOrThrow({
      where: { id: tokenId },
      select: { id: true, rpm_limit: true, tpm_limit: true, concurrency_limit: true, budget_quota: true, budget_period: true },
    });
  return { ...u, tokenId, columns };
}

const chat = (url: string, key: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], ...body }),
    signal,
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  mock = await startOpenAIMock();
  relay = await startRelay("node");
  await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1 }));
});
afterAll(async () => {
  for (const key of ["ModelRatio", "UserRateLimits", "ModelRateLimits"] as const) await updateOption(key, defaultRaw(key));
  await relay.close();
  await mock.close();
});
beforeEach(async () => {
  mock.reset();
  resetLocalLimits();
  await clearRelayData();
  await seedChannel({ base_url: mock.url, models: MODEL });
});

describe("key limits in one process", () => {
  it("200 concurrent requests on a 10-rpm key admit exactly 10; the rest get OpenAI's 429 and move no quota", async () => {
    const u = await limitedKey({ rpm_limit: 10 });
    const before = await u.quota();
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat(relay.url, u.key)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(190);
    expect(mock.requests).toHaveLength(10);
    const last = refused[0]!;
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    expect(last.headers.get("x-ratelimit-limit-requests")).toBe("10");
    expect(last.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(last.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(\.\d+)?s$/);
    const body = await last.json();
    expect(body.error).toMatchObject({ message: expect.stringContaining("令牌每分钟请求数已达上限 (10)"), code: "rate_limit_exceeded" });
    // Every answer of a limited call says where it stands.
    const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining-requests"))).sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await Promise.all(answers.filter((r) => !r.bodyUsed).map((r) => r.body?.cancel()));
    await settleAll();
    const db = await getDb();
    const logs = await db.log.findMany({ where: { token_id: u.tokenId }, select: { quota: true, type: true } });
    expect(logs).toHaveLength(10);
    const charged = logs.reduce((sum, l) => sum + BigInt(l.quota), 0n);
    expect(await u.quota()).toBe(before - charged);
    expect((await keyLimitUsage(await u.columns())).rpm).toMatchObject({ limit: 10, used: 10 });
  });

  it("answers the official SDKs' callers in their own protocols", async () => {
    const u = await limitedKey({ rpm_limit: 1 });
    expect((await chat(relay.url, u.key)).status).toBe(200);
    const openai = new OpenAI({ apiKey: u.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const e1 = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(e1).toBeInstanceOf(OpenAI.RateLimitError);
    expect(e1.headers.get("x-ratelimit-limit-requests")).toBe("1");
    const anthropic = new Anthropic({ apiKey: u.key, baseURL: relay.url, maxRetries: 0 });
    const e2 = await anthropic.messages
      .create({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e);
    expect(e2).toBeInstanceOf(Anthropic.RateLimitError);
    expect(e2.error).toMatchObject({
      type: "error",
      error: { type: "rate_limit_error", message: expect.stringContaining("令牌每分钟请求数已达上限 (1)") },
    });
    const gemini = new GoogleGenAI({ apiKey: u.key, httpOptions: { baseUrl: relay.url } });
    const e3 = await gemini.models.generateContent({ model: MODEL, contents: "hi" }).catch((e) => e);
    expect(e3.status).toBe(429);
    expect(e3.message).toContain("RESOURCE_EXHAUSTED");
    expect(mock.requests).toHaveLength(1);
  });

  it("user and model limits from the options count across a user's keys; a model limit refusing records no key hit", async () => {
    await updateOption("ModelRateLimits", JSON.stringify({ "*": { [MODEL]: { rpm: 2 } } }));
    try {
      const u = await limitedKey({ rpm_limit: 5 });
      expect((await chat(relay.url, u.key)).status).toBe(200);
      expect((await chat(relay.url, u.key)).status).toBe(200);
      const third = await chat(relay.url, u.key);
      expect(third.status).toBe(429);
      expect((await third.json()).error.message).toContain(`模型 ${MODEL} 每分钟请求数已达上限 (2)`);
      // The tightest rpm is the model's: its headers.
      expect(third.headers.get("x-ratelimit-limit-requests")).toBe("2");
      expect((await keyLimitUsage(await u.columns())).rpm).toMatchObject({ used: 2 });
    } finally {
      await updateOption("ModelRateLimits", "{}");
    }
  });

  it("tpm: a burst of streams cannot pass the limit; after settlement the window holds the real tokens", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 }, chunkDelayMs: 30 });
    const u = await limitedKey({ tpm_limit: 1200 });
    const stream = { stream: true, stream_options: { include_usage: true }, max_tokens: 500 };
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat(relay.url, u.key, stream)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe("1200");
    expect((await refused.json()).error.message).toContain("令牌每分钟 token 数已达上限 (1200)");
    for (const r of answers.filter((r) => r.status === 200)) {
      expect(r.headers.get("x-ratelimit-limit-tokens")).toBe("1200");
      await r.text();
    }
    await sleep(100);
    expect((await keyLimitUsage(await u.columns())).tpm).toMatchObject({ limit: 1200, used: 60 });
    expect((await chat(relay.url, u.key, stream)).status).toBe(200);
  });

  it("concurrency: a lease is released when the client leaves mid-stream and when the upstream fails", async () => {
    const u = await limitedKey({ concurrency_limit: 1 });
    mock.setBehaviour({ chunkDelayMs: 300, chunks: 10 });
    const leaving = new AbortController();
    const first = await chat(relay.url, u.key, { stream: true }, leaving.signal);
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    const busy = await chat(relay.url, u.key);
    expect(busy.status).toBe(429);
    expect((await busy.json()).error.message).toContain("令牌并发请求数已达上限 (1)");
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 1 });
    leaving.abort();
    await sleep(200);
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 0 });

    mock.setBehaviour({ failStatus: 500 });
    expect((await chat(relay.url, u.key)).status).toBe(500);
    mock.setBehaviour(null);
    expect((await chat(relay.url, u.key)).status).toBe(200);
    await sleep(50);
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 0 });
  });

  it("a daily budget refuses once spent, starts from the logs after a restart, and says when it ends", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 } });
    const u = await limitedKey({ budget_quota: 1000n, budget_period: "day" });
    expect((await chat(relay.url, u.key)).status).toBe(200);
    await settleAll();
    const spent = (await keyLimitUsage(await u.columns())).budget!;
    expect(BigInt(spent.used)).toBeGreaterThan(1000n);
    expect(spent.period).toBe("day");
    const tomorrow = new Date();
    tomorrow.setHours(24, 0, 0, 0);
    expect(spent.resetAt).toBe(tomorrow.getTime() / 1000);
    const refused = await chat(relay.url, u.key);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toContain("令牌每天预算已用完 (1000)");
    const wait = Number(refused.headers.get("retry-after"));
    expect(Math.abs(wait - (tomorrow.getTime() - Date.now()) / 1000)).toBeLessThan(5);
    // A restart forgets the counters: the logs say what the key spent today.
    resetLocalLimits();
    expect((await keyLimitUsage(await u.columns())).budget!.used).toBe(spent.used);
    expect((await chat(relay.url, u.key)).status).toBe(429);
    expect(mock.requests).toHaveLength(1);
  });

  it("a call without limits carries no x-ratelimit headers", async () => {
    const u = await limitedKey({});
    const r = await chat(relay.url, u.key);
    expect(r.status).toBe(200);
    expect([...r.headers.keys()].filter((h) => h.startsWith("x-ratelimit"))).toEqual([]);
  });
});

describe("key limits across processes", () => {
  const burst = async (urls: string[], key: string) => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(urls[i % urls.length]!, key)));
    await Promise.all(answers.map((r) => r.body?.cancel()));
    return answers.map((r) => r.status);
  };

  it("two relay processes without Redis admit exactly 10 of 200: their primary counts", async () => {
    const u = await limitedKey({ rpm_limit: 10 });
    const primary = limitsServer();
    const peers = new Map<import("node:child_process").ChildProcess, { send(m: unknown): void }>();
    const asPrimary = (m: unknown, child: import("node:child_process").ChildProcess) => {
      if (!peers.has(child)) peers.set(child, { send: (a) => child.send(a as never) });
      if (typeof m === "object" && m !== null && (m as { qiao?: string }).qiao === "limits") primary.handle(m as never, peers.get(child)!);
    };
    const env = { REDIS_CONN_STRING: "", QIAO_TEST_LIMITS_VIA_PARENT: "1" };
    const workers = await Promise.all([startRelayProcess(env, asPrimary), startRelayProcess(env, asPrimary)]);
    try {
      const statuses = await burst(
        workers.map((w) => w.url),
        u.key,
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(190);
      expect(mock.requests).toHaveLength(10);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("far from a 300-rpm limit the workers admit on shares the primary grants; near it, call by call: exactly 300 of 400", async () => {
    const u = await limitedKey({ rpm_limit: 300, tpm_limit: 100_000_000 });
    const primary = limitsServer();
    const peers = new Map<import("node:child_process").ChildProcess, { send(m: unknown): void }>();
    let admissions = 0;
    const asPrimary = (m: unknown, child: import("node:child_process").ChildProcess) => {
      if (!peers.has(child)) peers.set(child, { send: (a) => child.send(a as never) });
      if (typeof m !== "object" || m === null || (m as { qiao?: string }).qiao !== "limits") return;
      if ((m as { admit?: unknown }).admit) admissions++;
      primary.handle(m as never, peers.get(child)!);
    };
    const env = { REDIS_CONN_STRING: "", QIAO_TEST_LIMITS_VIA_PARENT: "1" };
    const workers = await Promise.all([startRelayProcess(env, asPrimary), startRelayProcess(env, asPrimary)]);
    try {
      const statuses: number[] = [];
      for (let wave = 0; wave < 40; wave++) {
        const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(workers[(i + wave) % 2]!.url, u.key)));
        await Promise.all(answers.map((r) => r.body?.cancel()));
        statuses.push(...answers.map((r) => r.status));
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(300);
      expect(statuses.filter((s) => s === 429)).toHaveLength(100);
      expect(mock.requests).toHaveLength(300);
      // Most calls never asked the primary: they were admitted on the workers' shares.
      expect(admissions).toBeLessThan(200);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("two relay processes on Redis admit exactly 10 of 200, in one sorted set", async () => {
    const u = await limitedKey({ rpm_limit: 10 }, true);
    const relays = await Promise.all([
      startRelayProcess({ REDIS_CONN_STRING: REDIS_URL }),
      startRelayProcess({ REDIS_CONN_STRING: REDIS_URL }),
    ]);
    const admin = await createClient({ url: REDIS_URL }).connect();
    try {
      const statuses = await burst(
        relays.map((r) => r.url),
        u.key,
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(mock.requests).toHaveLength(10);
      expect(await admin.zCard(`qiao:lim:rpm:k:${u.tokenId}`)).toBe(10);
    } finally {
      await admin.del(`qiao:lim:rpm:k:${u.tokenId}`);
      admin.destroy();
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  it("with Redis unreachable, requests are served, limited in the process, and the log says so once", async () => {
    const u = await limitedKey({ rpm_limit: 3 }, true);
    const relay = await startRelayProcess({ REDIS_CONN_STRING: "redis://127.0.0.1:1" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await chat(relay.url, u.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // Server log lines are written in batches (up to 100 ms late): wait for it, then count.
      await expect.poll(() => relay.output().match(/limits: Redis failed/g)?.length ?? 0).toBe(1);
    } finally {
      await relay.stop();
    }
  });
});
