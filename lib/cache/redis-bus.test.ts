// The bus between instances on the real Redis on loopback: a publish reaches the subscribers of
// the database the bus's URL selects, and no others (Redis's pub/sub itself ignores the database).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { type CacheEvent, onInvalidation, publishInvalidation } from "@/lib/cache/bus";
import { bridgeBusToRedis, busChannel } from "@/lib/cache/redis-bus";
import { testRedisUrl } from "@/tests/helpers/redis";

const MINE = testRedisUrl(4);
const OTHER = testRedisUrl(6);
const raw = createClient({ url: MINE });
const heard: CacheEvent[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stopListening: () => void;
let stopBridge: () => Promise<void>;

beforeAll(async () => {
  await raw.connect();
  stopListening = onInvalidation((event, remote) => {
    if (remote) heard.push(event);
  });
  stopBridge = bridgeBusToRedis(MINE, new Set(["user", "options"]), "this-instance");
  // The bridge subscribes once its connection is up: wait until a message on its channel arrives.
  for (let tries = 0; heard.length === 0; tries++) {
    if (tries === 100) throw new Error("the bus never subscribed");
    await raw.publish(busChannel(MINE), JSON.stringify({ origin: "probe", event: { kind: "options" } }));
    await sleep(50);
  }
  heard.length = 0;
});
afterAll(async () => {
  stopListening();
  await stopBridge();
  raw.destroy();
});

describe("the Redis bus", () => {
  it("names its channel by the URL's database", () => {
    expect(busChannel("redis://127.0.0.1:6379/3")).toBe("qiao:bus:3");
    expect(busChannel("redis://127.0.0.1:6379")).toBe("qiao:bus:0");
    expect(busChannel("rediss://user:pw@cache.example:6380/12")).toBe("qiao:bus:12");
  });

  it("delivers another instance's event published on its database, not one on another database or its own", async () => {
    await raw.publish(busChannel(OTHER), JSON.stringify({ origin: "elsewhere", event: { kind: "user", id: 7 } }));
    await raw.publish(busChannel(MINE), JSON.stringify({ origin: "this-instance", event: { kind: "user", id: 8 } }));
    await raw.publish(busChannel(MINE), JSON.stringify({ origin: "peer", event: { kind: "channels" } }));
    await raw.publish(busChannel(MINE), JSON.stringify({ origin: "peer", event: { kind: "user", id: 9 } }));
    await expect.poll(() => heard.length).toBe(1);
    await sleep(100);
    expect(heard).toEqual([{ kind: "user", id: 9 }]);
  });

  it("publishes this instance's events on its database's channel", async () => {
    const sub = createClient({ url: OTHER });
    await sub.connect();
    const got: string[] = [];
    await sub.subscribe(busChannel(MINE), (m) => got.push(m));
    try {
      publishInvalidation({ kind: "user", id: 42 });
      await expect.poll(() => got.length).toBe(1);
      expect(JSON.parse(got[0]!)).toEqual({ origin: "this-instance", event: { kind: "user", id: 42 } });
    } finally {
      sub.destroy();
    }
  });
});
