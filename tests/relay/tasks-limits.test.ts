// Key limits on task submits (issue 26): a submit is admitted like a relay call (rpm, concurrency,
// the key's budget; no tpm), refused with a 429 in the platform's own error shape and retry-after,
// and a refusal moves no quota and writes no task row. The budget is settled to what was charged:
// a submit the vendor refuses costs nothing. Concurrency is released when the submit has its answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHANNEL_CATALOG } from "@/lib/channels/catalog";
import { getDb } from "@/lib/db";
import { resetLocalLimits } from "@/lib/limits/engine";
import { keyLimitUsage } from "@/lib/limits/usage";
import { updateOption } from "@/lib/options";
import { type MidjourneyMock, startMidjourneyMock } from "@/tests/mocks/midjourney";
import { startSunoMock, type SunoMock } from "@/tests/mocks/suno";
import { clearRelayData, type RelayServer, seedChannel, seedUser, startRelay } from "@/tests/helpers/relay";

/** ModelPrice of mj_imagine (0.1) × 500 000. */
const IMAGINE = 50_000n;
const SUNO_KEY = "suno-channel-key";

type Limits = { rpm_limit?: number; concurrency_limit?: number; budget_quota?: bigint; budget_period?: string };

/** A user whose key (with a balance of its own) carries `limits`. */
async function limitedKey(limits: Limits) {
  const u = await seedUser({ token: { unlimited_quota: false, remain_quota: 1_000_000 } });
  const db = await getDb();
  await db.token.update({ where: { id: u.tokenId }, data: limits });
  const columns = () =>
    db.token.findUniqueOrThrow({
      where: { id: u.tokenId },
      select: { id: true, rpm_limit: true, tpm_limit: true, concurrency_limit: true, budget_quota: true, budget_period: true },
    });
  const keyLeft = async () => (await db.token.findUniqueOrThrow({ where: { id: u.tokenId } })).remain_quota;
  return { ...u, columns, keyLeft };
}

async function post(url: string, key: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
}

let relay: RelayServer;
let mj: MidjourneyMock;
let suno: SunoMock;

beforeAll(async () => {
  mj = await startMidjourneyMock("mj-secret");
  suno = await startSunoMock(SUNO_KEY);
  relay = await startRelay("node");
  await updateOption("RetryTimes", "0");
});
afterAll(async () => {
  await relay.close();
  await mj.close();
  await suno.close();
});
beforeEach(async () => {
  mj.reset();
  suno.reset();
  resetLocalLimits();
  await clearRelayData();
  const db = await getDb();
  await db.midjourney.deleteMany();
  await db.task.deleteMany();
  await seedChannel({ type: 2, base_url: mj.url, key: mj.secret, models: CHANNEL_CATALOG[2].models.join(",") });
  await seedChannel({ type: 36, base_url: suno.url, key: SUNO_KEY, models: "suno_music,suno_lyrics" });
});

describe("limits on Midjourney submits", () => {
  const imagine = (key: string, prompt = "a red fox") => post(relay.url, key, "/mj/submit/imagine", { prompt });

  it("a 2-rpm key gets 2 of 5 concurrent submits; the others get Midjourney's 429, no row and no charge", async () => {
    const u = await limitedKey({ rpm_limit: 2 });
    const before = await u.quota();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => imagine(u.key, `fox ${i}`)));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(2);
    expect(ok.map((a) => a.json.code)).toEqual([1, 1]);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      // Midjourney's shape: code 30 (too many), the message in description.
      expect(r.json).toEqual({ description: expect.stringContaining("令牌每分钟请求数已达上限 (2)"), type: "new_api_error", code: 30 });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("x-ratelimit-limit-requests")).toBe("2");
      expect(r.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    }
    expect(mj.submits()).toHaveLength(2);
    expect(await (await getDb()).midjourney.count({ where: { user_id: u.id } })).toBe(2);
    expect(await u.quota()).toBe(before - 2n * IMAGINE);
    expect(await u.keyLeft()).toBe(1_000_000n - 2n * IMAGINE);
    expect((await keyLimitUsage(await u.columns())).rpm).toMatchObject({ limit: 2, used: 2 });
  });

  it("a daily budget admits what fits, counts only what was charged, and refuses the submit that would pass it", async () => {
    const u = await limitedKey({ budget_quota: 2n * IMAGINE + IMAGINE / 2n, budget_period: "day" });
    // Refused by the proxy (queue full): refunded, so it leaves the budget as it was.
    mj.forced.push({ code: 23, description: "队列已满，请稍后尝试", createTask: false });
    expect((await imagine(u.key)).json.code).toBe(23);
    expect((await keyLimitUsage(await u.columns())).budget).toMatchObject({ used: "0" });
    expect((await imagine(u.key)).json.code).toBe(1);
    expect((await imagine(u.key)).json.code).toBe(1);
    const before = await u.quota();
    const rows = await (await getDb()).midjourney.count({ where: { user_id: u.id } });
    const over = await imagine(u.key);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ description: expect.stringContaining("令牌每天预算已用完 (125000)"), code: 30 });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(mj.submits()).toHaveLength(3);
    expect(await (await getDb()).midjourney.count({ where: { user_id: u.id } })).toBe(rows);
    expect(await u.quota()).toBe(before);
    expect((await keyLimitUsage(await u.columns())).budget).toMatchObject({ limit: "125000", used: String(2n * IMAGINE) });
  });
});

describe("limits on Suno submits", () => {
  it("concurrency: a second submit while the first waits on the vendor is refused in Suno's shape; the lease is back once the first has its answer", async () => {
    const u = await limitedKey({ concurrency_limit: 1 });
    suno.hangSubmits = true;
    const first = post(relay.url, u.key, "/suno/submit/music", { prompt: "a song about tea" });
    await expect.poll(() => suno.requests.length, { timeout: 10_000 }).toBe(1);
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 1 });

    const second = await post(relay.url, u.key, "/suno/submit/lyrics", { prompt: "tea" });
    expect(second.status).toBe(429);
    expect(second.json).toEqual({
      code: "rate_limit_exceeded",
      message: expect.stringContaining("令牌并发请求数已达上限 (1)"),
      data: null,
    });
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(suno.requests).toHaveLength(1);

    // The vendor drops the held submit: the first ends refused (and refunded), its lease released.
    suno.reset();
    expect((await first).status).not.toBe(200);
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 0 });
    const third = await post(relay.url, u.key, "/suno/submit/lyrics", { prompt: "tea" });
    expect(third.status).toBe(200);
    expect(third.json.code).toBe("success");
    expect((await keyLimitUsage(await u.columns())).concurrency).toEqual({ limit: 1, used: 0 });
  });
});
