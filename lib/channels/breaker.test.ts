import { afterEach, describe, expect, it } from "vitest";
import { onInvalidation, type CacheEvent, deliverLocally } from "@/lib/cache/bus";
import {
  Breaker,
  blockedChannels,
  breakerAllows,
  breakerBegin,
  breakerFailure,
  breakerSuccess,
  breakerTarget,
  breakerView,
  countsAsOutage,
  resetBreakers,
  startBreakers,
} from "@/lib/channels/breaker";

const SETTINGS = {
  ChannelBreakerEnabled: true,
  ChannelBreakerFailures: 3,
  ChannelBreakerWindowSeconds: 60,
  ChannelBreakerCooldownSeconds: 30,
};

afterEach(() => resetBreakers());

describe("the breaker's states (fake clock)", () => {
  it("opens after N failures within the window, not when they are spread wider", () => {
    const b = new Breaker("1");
    expect(b.fail(0, SETTINGS, "x")).toBe(false);
    expect(b.fail(10_000, SETTINGS, "x")).toBe(false);
    // The first failure has left the 60 s window: two in it.
    expect(b.fail(61_000, SETTINGS, "x")).toBe(false);
    expect(b.state).toBe("closed");
    expect(b.fail(62_000, SETTINGS, "x")).toBe(true);
    expect(b.state).toBe("open");
    expect(b.until).toBe(92_000);
  });

  it("a success in the closed state clears the count", () => {
    const b = new Breaker("1");
    b.fail(0, SETTINGS, "x");
    b.fail(1, SETTINGS, "x");
    expect(b.succeed()).toBe(false);
    expect(b.fail(2, SETTINGS, "x")).toBe(false);
    expect(b.fail(3, SETTINGS, "x")).toBe(false);
    expect(b.fail(4, SETTINGS, "x")).toBe(true);
  });

  it("open: skipped until the cool-down ends; then exactly one trial; its success closes", () => {
    const b = new Breaker("1");
    for (let t = 0; t < 3; t++) b.fail(t, SETTINGS, "x");
    expect(b.allows(2 + 29_999)).toBe(false);
    expect(b.allows(2 + 30_000)).toBe(true);
    b.begin(30_002);
    expect(b.state).toBe("half_open");
    // The trial runs: every other request still skips it.
    expect(b.allows(30_003)).toBe(false);
    expect(b.allows(60_000)).toBe(false);
    expect(b.succeed()).toBe(true);
    expect(b.state).toBe("closed");
    expect(b.allows(60_001)).toBe(true);
  });

  it("a failed trial opens it again for a fresh cool-down", () => {
    const b = new Breaker("1");
    for (let t = 0; t < 3; t++) b.fail(t, SETTINGS, "x");
    b.begin(40_000);
    expect(b.fail(41_000, SETTINGS, "again")).toBe(true);
    expect(b.state).toBe("open");
    expect(b.until).toBe(71_000);
    expect(b.allows(70_999)).toBe(false);
    expect(b.lastFailure).toBe("again");
  });

  it("a trial that never reports lets another through after two minutes; an abandoned one at once", () => {
    const b = new Breaker("1");
    for (let t = 0; t < 3; t++) b.fail(t, SETTINGS, "x");
    b.begin(40_000);
    expect(b.allows(40_000 + 120_000)).toBe(false);
    expect(b.allows(40_000 + 120_001)).toBe(true);
    b.abandon();
    expect(b.state).toBe("open");
    expect(b.allows(40_001)).toBe(true);
  });

  it("counts 5xx (timeouts and connection errors come as 502/504), not 4xx, 429 or a client that left", () => {
    expect(countsAsOutage(500, false)).toBe(true);
    expect(countsAsOutage(502, false)).toBe(true);
    expect(countsAsOutage(504, false)).toBe(true);
    expect(countsAsOutage(502, true)).toBe(false);
    expect(countsAsOutage(429, false)).toBe(false);
    expect(countsAsOutage(401, false)).toBe(false);
    expect(countsAsOutage(400, false)).toBe(false);
  });
});

describe("the process's breakers", () => {
  it("a channel that opens is blocked for pickChannel, published on the bus, and shown", () => {
    const events: CacheEvent[] = [];
    const off = onInvalidation((e) => events.push(e));
    try {
      const target = breakerTarget(7);
      for (let i = 0; i < 2; i++) expect(breakerFailure(target, SETTINGS, "状态码 502：boom", 1000)).toBe(false);
      expect(blockedChannels.size).toBe(0);
      expect(breakerFailure(target, SETTINGS, "状态码 502：boom", 1000)).toBe(true);
      expect(blockedChannels.has(7)).toBe(true);
      expect(events).toEqual([{ kind: "breaker", target: "7", state: "open", until: 31_000, reason: "状态码 502：boom" }]);
      expect(breakerView("7", 2000)).toEqual({ state: "open", until: 31, reason: "状态码 502：boom" });
      expect(breakerView("7", 31_000)?.state).toBe("half_open");
      breakerBegin(target, 31_000);
      expect(breakerAllows(target, 31_001)).toBe(false);
      breakerSuccess(target);
      expect(blockedChannels.size).toBe(0);
      expect(events.at(-1)).toMatchObject({ kind: "breaker", target: "7", state: "closed" });
      expect(breakerView("7")).toBeNull();
    } finally {
      off();
    }
  });

  it("a key's breaker is its own target and never blocks the channel", () => {
    const key = breakerTarget(7, "ab".repeat(32));
    for (let i = 0; i < 3; i++) breakerFailure(key, SETTINGS, "x", 0);
    expect(breakerAllows(key, 1)).toBe(false);
    expect(breakerAllows(breakerTarget(7), 1)).toBe(true);
    expect(blockedChannels.size).toBe(0);
  });

  it("follows what another process publishes", () => {
    startBreakers();
    deliverLocally({ kind: "breaker", target: "9", state: "open", until: Date.now() + 60_000, reason: "elsewhere" }, true);
    expect(breakerAllows("9")).toBe(false);
    expect(blockedChannels.has(9)).toBe(true);
    expect(breakerView("9")?.reason).toBe("elsewhere");
    deliverLocally({ kind: "breaker", target: "9", state: "closed", until: 0 }, true);
    expect(breakerAllows("9")).toBe(true);
    deliverLocally({ kind: "breaker", target: "9", state: "open", until: Date.now() + 60_000 }, true);
    deliverLocally({ kind: "breaker", target: "*", state: "closed", until: 0 }, true);
    expect(blockedChannels.size).toBe(0);
  });
});
