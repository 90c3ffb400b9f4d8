// The shared cache, in memory and on the real Redis on loopback (two clients = two instances).
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { encodeCommand, parseReply, RedisClient } from "@/lib/cache/redis";
import { MemoryCache, RedisCache, type SharedCache } from "@/lib/cache/shared";

const REDIS_URL = "redis://127.0.0.1:6379/0";
const clients: RedisClient[] = [];
const redis = () => {
  const c = new RedisClient(REDIS_URL);
  clients.push(c);
  return new RedisCache(c);
};
afterAll(() => {
  for (const c of clients) c.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("RESP framing", () => {
  it("encodes commands as arrays of bulk strings, UTF-8 lengths in bytes", () => {
    expect(encodeCommand(["SET", "k", "验"]).toString()).toBe("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n验\r\n");
  });

  it("parses each reply type and waits for a reply split across chunks", () => {
    const buf = Buffer.from("+OK\r\n:42\r\n$-1\r\n*2\r\n$1\r\na\r\n:1\r\n-ERR bad\r\n");
    let at = 0;
    const out: unknown[] = [];
    for (;;) {
      const r = parseReply(buf, at);
      if (!r) break;
      out.push(r[0] instanceof Error ? `error:${r[0].message}` : r[0]);
      at = r[1];
    }
    expect(out).toEqual(["OK", 42, null, ["a", 1], "error:ERR bad"]);
    expect(parseReply(Buffer.from("$5\r\nab"), 0)).toBeNull();
  });
});

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
  });
}

describe("Redis shared by two instances", () => {
  it("a value one client stores is taken once by either", async () => {
    const [a, b] = [redis(), redis()];
    const k = `test:${randomBytes(6).toString("hex")}`;
    await a.set(k, "code", 60);
    expect(await b.get(k)).toBe("code");
    const taken = await Promise.all([a.takeIf(k, "code"), b.takeIf(k, "code")]);
    expect(taken.sort()).toEqual([false, true]);
  });

  it("reconnects after the connection drops", async () => {
    const client = new RedisClient(REDIS_URL);
    clients.push(client);
    const c = new RedisCache(client);
    const k = `test:${randomBytes(6).toString("hex")}`;
    await c.set(k, "1", 60);
    client.close();
    expect(await c.get(k)).toBe("1");
  });

  it("fails a command when Redis is unreachable instead of hanging", async () => {
    const client = new RedisClient("redis://127.0.0.1:1");
    clients.push(client);
    await expect(new RedisCache(client).get("x")).rejects.toThrow();
  });
});
