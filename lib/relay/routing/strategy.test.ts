import { afterEach, describe, expect, it } from "vitest";
import { pickChannel, type RouteChannel, type RoutingTable } from "@/lib/relay/memory/key-user-channel-cache";
import { breakerFailure, resetBreakers } from "@/lib/channels/breaker";
import { inflightEnded, inflightStarted, recordLatency, resetChannelLoad, strategyOf, type PickNote } from "@/lib/relay/routing/strategy";

const SETTINGS = {
  ChannelBreakerEnabled: true,
  ChannelBreakerFailures: 1,
  ChannelBreakerWindowSeconds: 60,
  ChannelBreakerCooldownSeconds: 30,
};

const channel = (id: number): RouteChannel => ({ row: { id }, config: {} }) as unknown as RouteChannel;

/** One group "g", one model "m"; tiers as [priority, [[id, weight], ...]]. */
function table(tiers: [number, [number, number][]][]): RoutingTable {
  const built = tiers.map(([priority, list]) => ({
    priority,
    channels: list.map(([id]) => channel(id)),
    weights: list.map(([, w]) => w + 10),
    total: list.reduce((s, [, w]) => s + w + 10, 0),
  }));
  return {
    byGroupModel: new Map([["g", new Map([["m", built]])]]),
    tasksByGroupModel: new Map(),
    byId: new Map(built.flatMap((t) => t.channels.map((c) => [c.row.id, c] as const))),
    modelsByGroup: new Map(),
  };
}

/** A random source that returns the given values in turn. */
const seq = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

const pick = (
  t: RoutingTable,
  strategy: Parameters<typeof pickChannel>[7],
  o: { tried?: number[]; preferred?: number; random?: () => number; note?: PickNote } = {},
) =>
  pickChannel(t, "g", "m", new Set(o.tried ?? []), o.preferred ?? null, o.random ?? Math.random, t.byGroupModel, strategy, o.note ?? null)
    ?.row.id ?? null;

afterEach(() => {
  resetBreakers();
  resetChannelLoad();
});

describe("weighted (the default)", () => {
  it("draws by weight + 10 in the highest tier with untried channels", () => {
    const t = table([
      [
        10,
        [
          [1, 0],
          [2, 10],
        ],
      ],
      [0, [[3, 0]]],
    ]);
    // total 30: [0, 10) → 1, [10, 30) → 2
    expect(pick(t, "weighted", { random: seq(0.3) })).toBe(1);
    expect(pick(t, "weighted", { random: seq(0.34) })).toBe(2);
    expect(pick(t, "weighted", { tried: [1, 2] })).toBe(3);
    expect(pick(t, "weighted", { tried: [1, 2, 3] })).toBeNull();
  });
});

describe("least_inflight", () => {
  it("takes the channel with the fewest requests in flight in this process", () => {
    const t = table([
      [
        0,
        [
          [1, 0],
          [2, 0],
          [3, 0],
        ],
      ],
    ]);
    inflightStarted(1);
    inflightStarted(1);
    inflightStarted(2);
    expect(pick(t, "least_inflight")).toBe(3);
    inflightStarted(3);
    inflightStarted(3);
    expect(pick(t, "least_inflight")).toBe(2);
    inflightEnded(1);
    inflightEnded(1);
    expect(pick(t, "least_inflight")).toBe(1);
    expect(pick(t, "least_inflight", { tried: [1] })).toBe(2);
  });

  it("breaks ties by weight: each tied channel with its share", () => {
    const t = table([
      [
        0,
        [
          [1, 0],
          [2, 30],
        ],
      ],
    ]);
    // Weights 10 and 40: the reservoir replaces channel 1 with 2 when random × 50 < 40.
    expect(pick(t, "least_inflight", { random: seq(0.79) })).toBe(2);
    expect(pick(t, "least_inflight", { random: seq(0.81) })).toBe(1);
  });
});

describe("lowest_latency", () => {
  it("measures every channel first, then takes the lowest moving average", () => {
    const t = table([
      [
        0,
        [
          [1, 0],
          [2, 0],
          [3, 0],
        ],
      ],
    ]);
    recordLatency(1, 300);
    recordLatency(2, 100);
    // Channel 3 has no sample yet.
    expect(pick(t, "lowest_latency")).toBe(3);
    recordLatency(3, 500);
    expect(pick(t, "lowest_latency")).toBe(2);
    // A slow answer moves channel 2's average (0.2 × 1100 + 0.8 × 100 = 300) to a tie with 1.
    recordLatency(2, 1100);
    expect(pick(t, "lowest_latency", { random: seq(0.9) })).toBe(1);
    expect(pick(t, "lowest_latency", { random: seq(0.1) })).toBe(2);
  });
});

describe("every strategy", () => {
  it("keeps the session's sticky channel above the strategy, within its tier", () => {
    const t = table([
      [
        10,
        [
          [1, 0],
          [2, 0],
        ],
      ],
      [0, [[3, 0]]],
    ]);
    inflightStarted(2);
    recordLatency(1, 10);
    recordLatency(2, 999);
    for (const s of ["weighted", "least_inflight", "lowest_latency"] as const) {
      expect(pick(t, s, { preferred: 2 })).toBe(2);
      expect(pick(t, s, { preferred: 3 })).not.toBe(3);
    }
  });

  it("skips open channels (noted), falls to the next tier, and when all are open takes the soonest to reopen", () => {
    const t = table([
      [
        10,
        [
          [1, 0],
          [2, 0],
        ],
      ],
      [
        0,
        [
          [3, 0],
          [4, 0],
        ],
      ],
    ]);
    const now = Date.now();
    breakerFailure("1", SETTINGS, "x", now);
    for (const s of ["weighted", "least_inflight", "lowest_latency"] as const) {
      const note: PickNote = { breakerSkipped: null };
      expect(pick(t, s, { note })).toBe(2);
      expect([...(note.breakerSkipped ?? [])]).toEqual([1]);
    }
    breakerFailure("2", SETTINGS, "x", now);
    expect(pick(t, "weighted", { random: seq(0.99) })).toBe(4);
    breakerFailure("3", SETTINGS, "x", now + 2);
    breakerFailure("4", SETTINGS, "x", now + 1);
    // Every channel open: channel 1 (opened first) reopens first.
    for (const s of ["weighted", "least_inflight", "lowest_latency"] as const) expect(pick(t, s)).toBe(1);
    expect(pick(t, "weighted", { tried: [1, 2] })).toBe(4);
    expect(pick(t, "weighted", { tried: [1, 2, 3, 4] })).toBeNull();
  });
});

describe("strategyOf", () => {
  it("reads the group's entry, weighted when absent (also for names on Object's prototype)", () => {
    const options = { ChannelRoutingStrategy: { vip: "least_inflight" as const } };
    expect(strategyOf(options, "vip")).toBe("least_inflight");
    expect(strategyOf(options, "default")).toBe("weighted");
    expect(strategyOf(options, "constructor")).toBe("weighted");
    expect(strategyOf(options, "__proto__")).toBe("weighted");
  });
});
