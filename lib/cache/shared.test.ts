// The shared cache, in memory and on the real Redis on loopback (two clients = two instances).
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { MemoryCache, RedisCache, type SharedCache } from "@/lib/cache/shared";

const REDIS_URL = "redis://127.0.0.1:6379/0";
// This run's keys: its own prefix, deleted at the end (other runs share the server).
const RUN = `qiao-test:${randomBytes(6).toString("hex")}:`;
const admin = createClient({ url: REDIS_URL });
const caches: RedisCache[] = [];
const redis = (name?: string) => {
  const c = new RedisCache(REDIS_URL, { prefix: RUN, name });
  caches.push(c);
  return c;
};
beforeAll(async () => {
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(caches.map((c) => c.close()));
  for await (const keys of admin.scanIterator({ MATCH: `${RUN}*`, COUNT: 100 })) if (keys.length) await admin.del(keys);
  admin.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const [name, make] of [
  ["memory", () => new MemoryCache()],
  ["redis", redis],
] as [string, () => SharedCache][]) {
  describe(`the ${name} cache`, () => {
    const key = () => `test:${randomBytes(6).toString("hex")}`;

    it("stores with a TTL, and only-if-absent refuses a taken key", async () => {
      const c = make();
      const k = key();
      expect(await c.set(k, "a", 60)).toBe(true);
      expect(await c.set(k, "b", 60, true)).toBe(false);
      expect(await c.get(k)).toBe("a");
      expect(await c.set(k, "c", 60)).toBe(true);
      expect(await c.get(k)).toBe("c");
      await c.del(k);
      expect(await c.get(k)).toBeNull();
    });

    it("takes a value once, and only when it matches", async () => {
      const c = make();
      const k = key();
      await c.set(k, "123abc", 60);
      expect(await c.takeIf(k, "wrong")).toBe(false);
      const both = await Promise.all([c.takeIf(k, "123abc"), c.takeIf(k, "123abc")]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await c.get(k)).toBeNull();
    });

    it("counts in a window that starts at the first hit and expires", async () => {
      const c = make();
      const k = key();
      expect(await c.incr(k, 1)).toBe(1);
      expect(await c.incr(k, 1)).toBe(2);
      await sleep(1100);
      expect(await c.get(k)).toBeNull();
      expect(await c.incr(k, 1)).toBe(1);
    });

    it("expires values", async () => {
      const c = make();
      const k = key();
      await c.set(k, "v", 1);
      await sleep(1100);
      expect(await c.get(k)).toBeNull();
      expect(await c.set(k, "w", 60, true)).toBe(true);
    });

    it("keeps a sliding window of hits", async () => {
      const c = make();
      const k = key();
      expect(await c.hitWindow(k, 2, 1)).toBe(true);
      expect(await c.hitWindow(k, 2, 1)).toBe(true);
      expect(await c.hitWindow(k, 2, 1)).toBe(false);
      expect(await c.countWindow(k, 1)).toBe(2);
      await sleep(600);
      expect(await c.countWindow(k, 0.5)).toBe(0);
      await sleep(500);
      expect(await c.countWindow(k, 1)).toBe(0);
      expect(await c.hitWindow(k, 2, 1)).toBe(true);
      await c.del(k);
      expect(await c.countWindow(k, 1)).toBe(0);
    });

    it("counts each of many concurrent hits once, up to the limit", async () => {
      const c = make();
      const k = key();
      const hits = await Promise.all(Array.from({ length: 30 }, () => c.hitWindow(k, 20, 60)));
      expect(hits.filter(Boolean)).toHaveLength(20);
      expect(await c.countWindow(k, 60)).toBe(20);
    });

    it("keeps a sliding log that says when a slot frees, and follows a changed limit", async () => {
      const c = make();
      const k = key();
      expect(await c.logHit(k, 2, 1000, "fits")).toBe(0);
      expect(await c.logHit(k, 2, 1000, "no")).toBe(0);
      expect(await c.logHit(k, 2, 1000, "fits")).toBe(0);
      const wait = await c.logHit(k, 2, 1000, "fits");
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(1000);
      // A refused hit is not recorded: a larger limit has room for exactly one more.
      expect(await c.logHit(k, 3, 1000, "fits")).toBe(0);
      expect(await c.logHit(k, 3, 1000, "no")).toBeGreaterThan(0);
      // A smaller limit: the newest hit alone decides.
      expect(await c.logHit(k, 1, 1000, "no")).toBeGreaterThan(0);
      await sleep(1100);
      expect(await c.logHit(k, 1, 1000, "no")).toBe(0);
      // "always" records even over the limit.
      await c.logHit(k, 1, 60_000, "always");
      await c.logHit(k, 1, 60_000, "always");
      expect(await c.logHit(k, 1, 60_000, "no")).toBeGreaterThan(59_000);
    });

    it("admits each of many concurrent hits once, up to the log's limit", async () => {
      const c = make();
      const k = key();
      const waits = await Promise.all(Array.from({ length: 30 }, () => c.logHit(k, 20, 60_000, "fits")));
      expect(waits.filter((w) => w === 0)).toHaveLength(20);
    });
  });
}

describe("Redis shared by two instances", () => {
  it("refuses a URL that is not redis:// or rediss://", () => {
    expect(() => new RedisCache("http://127.0.0.1:6379")).toThrow("REDIS_CONN_STRING");
  });

  it("a value one client stores is taken once by either", async () => {
    const [a, b] = [redis(), redis()];
    const k = `test:${randomBytes(6).toString("hex")}`;
    await a.set(k, "code", 60);
    expect(await b.get(k)).toBe("code");
    const taken = await Promise.all([a.takeIf(k, "code"), b.takeIf(k, "code")]);
    expect(taken.sort()).toEqual([false, true]);
  });

  it("reconnects after the connection drops", async () => {
    const name = `qiao-test-${randomBytes(4).toString("hex")}`;
    const c = redis(name);
    const k = `test:${randomBytes(6).toString("hex")}`;
    await c.set(k, "1", 60);
    // Redis drops this cache's connection (as a restart or a network fault would).
    const line = (await admin.clientList()).find((client) => client.name === name);
    expect(line).toBeDefined();
    expect(await admin.clientKill({ filter: "ID", id: line!.id })).toBe(1);
    // Sent while the client reconnects: it waits for the new connection.
    await sleep(20);
    expect(await c.get(k)).toBe("1");
    expect((await admin.clientList()).filter((client) => client.name === name)).toHaveLength(1);
  });

  it("connects at the first command, not before", async () => {
    const name = `qiao-test-${randomBytes(4).toString("hex")}`;
    const c = redis(name);
    const named = async () => (await admin.clientList()).filter((client) => client.name === name).length;
    expect(await named()).toBe(0);
    await c.get("test:none");
    expect(await named()).toBe(1);
  });

  it("fails the commands while Redis is gone after a few tries, and connects again when it is back", async () => {
    // A loopback relay in front of the real Redis, to take "Redis" away and bring it back.
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((socket) => {
      const upstream = net.connect(6379, "127.0.0.1");
      for (const s of [socket, upstream]) {
        sockets.add(s);
        s.on("error", () => {});
        s.on("close", () => sockets.delete(s));
      }
      socket.pipe(upstream).pipe(socket);
    });
    const listen = (port: number) => new Promise<void>((resolve) => relay.listen(port, "127.0.0.1", resolve));
    await listen(0);
    const port = (relay.address() as net.AddressInfo).port;
    const c = new RedisCache(`redis://127.0.0.1:${port}/0`, { prefix: RUN });
    caches.push(c);
    const k = `test:${randomBytes(6).toString("hex")}`;
    await c.set(k, "1", 60);
    await new Promise<void>((resolve) => {
      relay.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    // A command in flight when the connection drops fails at once; one sent while the client is
    // reconnecting waits for the tries (50 + 100 + 200 + 400 ms), then fails.
    await sleep(20);
    const started = Date.now();
    await expect(c.get(k)).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(3000);
    await listen(port);
    try {
      expect(await c.get(k)).toBe("1");
    } finally {
      await c.close();
      await new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    }
  });

  it("fails a command when Redis is unreachable instead of hanging", async () => {
    const c = new RedisCache("redis://127.0.0.1:1");
    caches.push(c);
    const started = Date.now();
    await expect(c.get("x")).rejects.toThrow();
    await expect(c.set("x", "1", 60)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
