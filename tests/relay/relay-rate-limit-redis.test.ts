// Per-user request limits shared between processes: two relay processes on the real Redis on
// loopback admit exactly the limit between them; so do two relay workers without Redis, counted by
// their primary (played here by the test, with the primary's own handler); and a relay whose Redis
// is gone still limits, in its own memory, and says so in its log.
import { randomInt } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { hitLogServer, isHitLogAsk } from "@/lib/server/hit-log";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser } from "@/tests/helpers/relay";
import { testRedisUrl } from "@/tests/helpers/redis";

const REDIS_URL = testRedisUrl(0);
const MODEL = "m-limited-shared";
const KEYS = ["ModelRequestRateLimitEnabled", "ModelRequestRateLimitCount", "ModelRequestRateLimitSuccessCount"] as const;

let mock: OpenAIMock;

const chat = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  }).then((r) => r.status);

/**
 * A user whose id no other run uses: the windows are keyed by user id under the server's fixed
 * "qiao:" prefix, and other runs (their own databases, ids from 1) share this Redis.
 */
async function uniqueUser() {
  const seeded = await seedUser();
  const db = await getDb();
  const id = randomInt(1_000_000_000, 2_000_000_000);
  await db.user.update({ where: { id: seeded.id }, data: { id } });
  await db.token.updateMany({ where: { user_id: seeded.id }, data: { user_id: id } });
  return { id, key: seeded.key };
}

beforeAll(async () => {
  mock = await startOpenAIMock();
  await clearRelayData();
  await seedChannel({ base_url: mock.url, models: MODEL });
  await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1 }));
  await updateOption("ModelRequestRateLimitEnabled", "true");
  await updateOption("ModelRequestRateLimitCount", "5");
  await updateOption("ModelRequestRateLimitSuccessCount", "0");
});
afterAll(async () => {
  for (const key of [...KEYS, "ModelRatio"] as const) await updateOption(key, defaultRaw(key));
  await mock.close();
});

describe("request limits through Redis", () => {
  it("two relay processes admit exactly the limit between them", async () => {
    const user = await uniqueUser();
    const relays = await Promise.all([
      startRelayProcess({ REDIS_CONN_STRING: REDIS_URL }),
      startRelayProcess({ REDIS_CONN_STRING: REDIS_URL }),
    ]);
    const admin = await createClient({ url: REDIS_URL }).connect();
    try {
      mock.reset();
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(relays[i % 2]!.url, user.key)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      expect(mock.requests).toHaveLength(5);
      // Both processes kept their counts in the one list.
      expect(await admin.lLen(`qiao:mrrl:total:${user.id}`)).toBe(5);
    } finally {
      await admin.del([`qiao:mrrl:total:${user.id}`, `qiao:mrrl:success:${user.id}`]);
      admin.destroy();
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  it("without Redis, two relay workers admit exactly the limit between them: their primary counts", async () => {
    const user = await uniqueUser();
    const primary = hitLogServer();
    const asPrimary = (m: unknown, child: import("node:child_process").ChildProcess) => {
      if (isHitLogAsk(m)) primary(m, (answer) => child.send(answer));
    };
    const workers = await Promise.all([
      startRelayProcess({ REDIS_CONN_STRING: "", QIAO_TEST_HITS_VIA_PARENT: "1" }, asPrimary),
      startRelayProcess({ REDIS_CONN_STRING: "", QIAO_TEST_HITS_VIA_PARENT: "1" }, asPrimary),
    ]);
    try {
      mock.reset();
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(workers[i % 2]!.url, user.key)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      expect(mock.requests).toHaveLength(5);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("falls back to the process's own count when Redis is unreachable, and logs it once", async () => {
    const user = await uniqueUser();
    // Nothing listens on port 1: every Redis command fails.
    const relay = await startRelayProcess({ REDIS_CONN_STRING: "redis://127.0.0.1:1" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push(await chat(relay.url, user.key));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      // Server log lines are written in batches (up to 100 ms late): wait for it, then count.
      await expect.poll(() => relay.output().match(/request limits: Redis failed/g)?.length ?? 0).toBe(1);
    } finally {
      await relay.stop();
    }
  });
});
