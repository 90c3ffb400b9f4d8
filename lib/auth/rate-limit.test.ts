// Rate limits in memory (one instance) and on the real Redis on loopback, where two limiters (two
// instances, each its own connection) count the same hits.
import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { enforceRateLimit, type RateLimitStore, rateLimitStore } from "@/lib/auth/rate-limit";
import { MemoryCache, RedisCache, setSharedCache } from "@/lib/cache/shared";

const REDIS_URL = "redis://127.0.0.1:6379/0";
// This run's keys: its own prefix, deleted at the end (other runs share the server).
const RUN = `qiao-test:${randomBytes(6).toString("hex")}:`;
const caches: RedisCache[] = [];
const instance = () => {
  const cache = new RedisCache(REDIS_URL, { prefix: RUN });
  caches.push(cache);
  return rateLimitStore(cache);
};
afterAll(async () => {
  await Promise.all(caches.map((c) => c.close()));
  const admin = await createClient({ url: REDIS_URL }).connect();
  for await (const keys of admin.scanIterator({ MATCH: `${RUN}*`, COUNT: 100 })) if (keys.length) await admin.del(keys);
  admin.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = () => `login:ip:${randomBytes(4).toString("hex")}`;

/** Runs `enforceRateLimit` and says whether it let the call through. */
const allowed = (store: RateLimitStore, k: string, limit: number, window: number) =>
  enforceRateLimit(k, limit, window, store).then(
    () => true,
    (e: { status?: number; message?: string }) => {
      expect(e).toMatchObject({ status: 429, message: "请求次数过多，请稍后再试！" });
      return false;
    },
  );

for (const [name, make] of [
  ["memory", () => rateLimitStore(new MemoryCache())],
  ["redis", instance],
] as [string, () => RateLimitStore][]) {
  describe(`rate limits in ${name}`, () => {
    it("lets `limit` calls through per window, then answers 429 until the oldest hit leaves it", async () => {
      const store = make();
      const k = key();
      for (let i = 0; i < 3; i++) expect(await allowed(store, k, 3, 1)).toBe(true);
      expect(await allowed(store, k, 3, 1)).toBe(false);
      expect(await store.count(k, 1)).toBe(3);
      await sleep(1100);
      expect(await store.count(k, 1)).toBe(0);
      expect(await allowed(store, k, 3, 1)).toBe(true);
    });

    it("counts without recording, resets, and has no limit at 0", async () => {
      const store = make();
      const k = key();
      expect(await store.count(k, 60)).toBe(0);
      await store.hit(k, Number.MAX_SAFE_INTEGER, 60);
      await store.hit(k, Number.MAX_SAFE_INTEGER, 60);
      expect(await store.count(k, 60)).toBe(2);
      expect(await store.count(`${k}:other`, 60)).toBe(0);
      await store.reset(k);
      expect(await store.count(k, 60)).toBe(0);
      for (let i = 0; i < 5; i++) expect(await allowed(store, k, 0, 60)).toBe(true);
      expect(await store.count(k, 60)).toBe(0);
    });
  });
}

describe("rate limits shared by two instances through Redis", () => {
  it("holds the limit across both: hits on either count against one window", async () => {
    const [a, b] = [instance(), instance()];
    const k = key();
    // Alternating and concurrent: 10 attempts against a limit of 6, five on each instance.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => allowed(i % 2 ? b : a, k, 6, 60)));
    expect(results.filter(Boolean)).toHaveLength(6);
    expect(await allowed(a, k, 6, 60)).toBe(false);
    expect(await allowed(b, k, 6, 60)).toBe(false);
    expect(await a.count(k, 60)).toBe(6);
    expect(await b.count(k, 60)).toBe(6);
    // A reset on one instance (a successful login) frees both.
    await b.reset(k);
    expect(await allowed(a, k, 6, 60)).toBe(true);
  });

  it("is what sign-in uses: the default store follows the process's shared cache", async () => {
    const caches = [new RedisCache(REDIS_URL, { prefix: RUN }), new RedisCache(REDIS_URL, { prefix: RUN })];
    const k = key();
    try {
      setSharedCache(caches[0]!);
      await enforceRateLimit(k, 2, 60);
      await enforceRateLimit(k, 2, 60);
      // Another instance, the same Redis: the third call is over the limit there too.
      setSharedCache(caches[1]!);
      await expect(enforceRateLimit(k, 2, 60)).rejects.toMatchObject({ status: 429 });
      expect(await rateLimitStore().count(k, 60)).toBe(2);
    } finally {
      setSharedCache(new MemoryCache());
      await Promise.all(caches.map((c) => c.close()));
    }
  });
});

describe("rate limits without Redis", () => {
  it("keeps each instance's own memory apart when there is no Redis (the limit is per instance)", async () => {
    const [a, b] = [rateLimitStore(new MemoryCache()), rateLimitStore(new MemoryCache())];
    const k = key();
    for (let i = 0; i < 2; i++) expect(await allowed(a, k, 2, 60)).toBe(true);
    expect(await allowed(a, k, 2, 60)).toBe(false);
    expect(await allowed(b, k, 2, 60)).toBe(true);
  });
});
