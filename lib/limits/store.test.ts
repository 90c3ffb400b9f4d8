// The limits' counters, in memory (a fake clock) and on the real Redis on loopback (two stores on
// two connections = two instances): each kind, all-or-nothing admission, settlement.
import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisCache } from "@/lib/cache/shared";
import { type AdmitAsk, type CounterSpec, type LimitStore, MemoryLimitStore, RedisLimitStore } from "@/lib/limits/store";

const REDIS_URL = "redis://127.0.0.1:6379/0";
const RUN = `qiao-test:${randomBytes(6).toString("hex")}:`;
const admin = createClient({ url: REDIS_URL });
const caches: RedisCache[] = [];
beforeAll(async () => {
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(caches.map((c) => c.close()));
  for await (const keys of admin.scanIterator({ MATCH: `${RUN}*`, COUNT: 100 })) if (keys.length) await admin.del(keys);
  admin.destroy();
});

let seq = 0;
const ask = (counters: CounterSpec[], o: Partial<AdmitAsk> = {}): AdmitAsk => ({
  counters,
  tokens: 0,
  quota: 0,
  lease: `lease${++seq}`,
  leaseMs: 60_000,
  record: true,
  ...o,
});
const key = (name: string) => `${name}:${randomBytes(4).toString("hex")}`;

const stores: [string, () => LimitStore][] = [
  ["memory", () => new MemoryLimitStore()],
  [
    "redis",
    () => {
      const c = new RedisCache(REDIS_URL, { prefix: RUN });
      caches.push(c);
      return new RedisLimitStore(c);
    },
  ],
];

for (const [name, make] of stores) {
  describe(`limit counters (${name})`, () => {
    it("rpm: 200 concurrent admissions against 10 admit exactly 10 and say when a slot frees", async () => {
      const a = make();
      // Two Redis stores are two instances sharing one count; memory is one process's.
      const b = name === "redis" ? make() : a;
      const rpm = { kind: "rpm" as const, key: key("rpm"), limit: 10 };
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).admit(ask([rpm]))));
      expect(answers.filter((x) => x.refused < 0)).toHaveLength(10);
      const refused = answers.find((x) => x.refused === 0)!;
      expect(refused.waitMs).toBeGreaterThan(58_000);
      expect(refused.waitMs).toBeLessThanOrEqual(60_000);
      expect(refused.states[0]!.used).toBe(10);
    });

    it("all or nothing: a refused counter leaves the others untouched", async () => {
      const s = make();
      const rpm = { kind: "rpm" as const, key: key("rpm"), limit: 5 };
      const conc = { kind: "concurrency" as const, key: key("conc"), limit: 1 };
      expect((await s.admit(ask([rpm, conc]))).refused).toBe(-1);
      const second = await s.admit(ask([rpm, conc]));
      expect(second.refused).toBe(1);
      const look = await s.admit(ask([rpm, conc], { record: false }));
      expect(look.states.map((x) => x.used)).toEqual([1, 1]);
    });

    it("tpm: reserves the estimate, refuses past the limit, and settles the real tokens into the same bucket", async () => {
      const s = make();
      const tpm = { kind: "tpm" as const, key: key("tpm"), limit: 1000 };
      const first = await s.admit(ask([tpm], { tokens: 600 }));
      expect(first.refused).toBe(-1);
      expect(first.states[0]!.used).toBe(600);
      expect((await s.admit(ask([tpm], { tokens: 600 }))).refused).toBe(0);
      await s.settle({ counters: [tpm], bucket: first.bucket, tokensDelta: 100 - 600, quotaDelta: 0, lease: "x" });
      const after = await s.admit(ask([tpm], { tokens: 600 }));
      expect(after.refused).toBe(-1);
      expect(after.states[0]!.used).toBe(700);
      // An estimate alone over the limit never fits.
      const huge = await s.admit(ask([tpm], { tokens: 5000 }));
      expect(huge.refused).toBe(0);
      expect(huge.waitMs).toBe(60_000);
    });

    it("concurrency: a lease holds a slot until released", async () => {
      const s = make();
      const conc = { kind: "concurrency" as const, key: key("conc"), limit: 2 };
      const one = ask([conc]);
      expect((await s.admit(one)).refused).toBe(-1);
      expect((await s.admit(ask([conc]))).refused).toBe(-1);
      expect((await s.admit(ask([conc]))).refused).toBe(0);
      await s.settle({ counters: [conc], bucket: 0, tokensDelta: 0, quotaDelta: 0, lease: one.lease });
      expect((await s.admit(ask([conc]))).refused).toBe(-1);
    });

    it("budget: starts from its seed once, reserves, and is corrected to the charge", async () => {
      const s = make();
      const budget = { kind: "budget" as const, key: key("budget"), limit: 1000, seed: 700, ttlMs: 60_000 };
      const first = await s.admit(ask([budget], { quota: 200 }));
      expect(first.refused).toBe(-1);
      expect(first.states[0]!.used).toBe(900);
      expect((await s.admit(ask([budget], { quota: 200 }))).refused).toBe(0);
      await s.settle({ counters: [budget], bucket: 0, tokensDelta: 0, quotaDelta: 50 - 200, lease: "x" });
      // A later seed is ignored: the counter exists.
      const look = await s.admit(ask([{ ...budget, seed: 0 }], { record: false }));
      expect(look.states[0]!.used).toBe(750);
      expect((await s.admit(ask([budget], { quota: 250 }))).refused).toBe(-1);
      expect((await s.admit(ask([budget], { quota: 1 }))).refused).toBe(0);
    });
  });
}

describe("limit counters slide with time (memory, fake clock)", () => {
  it("rpm frees one slot as each request leaves the 60 s window", () => {
    let now = 1_000_000;
    const s = new MemoryLimitStore(() => now);
    const rpm = { kind: "rpm" as const, key: "rpm", limit: 2 };
    expect(s.admit(ask([rpm])).refused).toBe(-1);
    now += 10_000;
    expect(s.admit(ask([rpm])).refused).toBe(-1);
    const refused = s.admit(ask([rpm]));
    expect(refused.waitMs).toBe(50_000);
    now += 50_000;
    expect(s.admit(ask([rpm])).refused).toBe(-1);
    expect(s.admit(ask([rpm])).refused).toBe(0);
  });

  it("rpm: a worker's report, runs of calls per millisecond in any order, puts each call in its place in the window", () => {
    let now = 4_000_000;
    const s = new MemoryLimitStore(() => now);
    const rpm = { kind: "rpm" as const, key: "rpm-runs", limit: 80 };
    const [grant] = s.grant({ owner: "w1", counters: [rpm], want: [10], min: [1] });
    expect(grant?.n).toBe(10);
    // The share is held in full until reported.
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(10);
    // Admitted at +300 ms (three calls), +100 ms (the clock went back; two) and +300 ms again (one);
    // one more before it is reported, at the primary itself, at +500 ms.
    now += 500;
    expect(s.admit(ask([rpm])).refused).toBe(-1);
    s.report([{ id: grant!.id, key: rpm.key, kind: "rpm", runs: [now - 200, 3, now - 400, 2, now - 200, 1] }]);
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(7);
    // Fill the window, then each call leaves it 60 s after its own time: two, then four, then one.
    for (let i = 0; i < 73; i++) expect(s.admit(ask([rpm])).refused).toBe(-1);
    const full = s.admit(ask([rpm]));
    expect(full.refused).toBe(0);
    expect(full.waitMs).toBe(59_600);
    now += 59_600;
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(78);
    now += 200;
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(74);
    now += 200;
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(0);
  });

  it("rpm: calls of one millisecond count as one run; the wait names the run whose leaving frees the slot", () => {
    const t = 6_000_000;
    let now = t;
    const s = new MemoryLimitStore(() => now);
    const rpm = { kind: "rpm" as const, key: "rpm-ms", limit: 1000 };
    const [grant] = s.grant({ owner: "w1", counters: [rpm], want: [100], min: [1] });
    for (let i = 0; i < 300; i++) expect(s.admit(ask([rpm])).refused).toBe(-1);
    now = t + 1000;
    for (let i = 0; i < 200; i++) expect(s.admit(ask([rpm])).refused).toBe(-1);
    // The worker's 100 calls of t + 500 go between the two runs.
    s.report([{ id: grant!.id, key: rpm.key, kind: "rpm", runs: [t + 500, 60, t + 500, 40] }]);
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(600);
    for (let i = 0; i < 400; i++) expect(s.admit(ask([rpm])).refused).toBe(-1);
    expect(s.admit(ask([rpm])).waitMs).toBe(59_000);
    now = t + 60_000; // the 300 of t leave
    expect(s.admit(ask([rpm], { record: false })).states[0]).toEqual({ used: 700, resetMs: 500 });
    for (let i = 0; i < 300; i++) expect(s.admit(ask([rpm])).refused).toBe(-1);
    expect(s.admit(ask([rpm])).waitMs).toBe(500);
    now = t + 60_500;
    expect(s.admit(ask([rpm], { record: false })).states[0]!.used).toBe(900);
  });

  it("rpm: a log whose old runs have left is compacted and still counts and waits exactly", () => {
    const t = 7_000_000;
    let now = t;
    const s = new MemoryLimitStore(() => now);
    const wide = { kind: "rpm" as const, key: "rpm-compact", limit: 10_000 };
    for (let k = 0; k < 200; k++) {
      now = t + k;
      expect(s.admit(ask([wide])).refused).toBe(-1);
      expect(s.admit(ask([wide])).refused).toBe(-1);
    }
    now = t + 60_149; // the first 150 milliseconds' 300 calls have left
    expect(s.admit(ask([wide], { record: false })).states[0]).toEqual({ used: 100, resetMs: 1 });
    expect(s.admit(ask([wide])).refused).toBe(-1);
    const narrow = { ...wide, limit: 101 };
    const full = s.admit(ask([narrow]));
    expect(full.refused).toBe(0);
    expect(full.waitMs).toBe(1);
    now += 50; // t + 150 … t + 199 leave: the call of now is left
    expect(s.admit(ask([narrow], { record: false })).states[0]).toEqual({ used: 1, resetMs: 59_950 });
  });

  it("tpm: the oldest second's tokens leave the window; a correction after it has left changes nothing", () => {
    let now = 2_000_000;
    const s = new MemoryLimitStore(() => now);
    const tpm = { kind: "tpm" as const, key: "tpm", limit: 100 };
    const first = s.admit(ask([tpm], { tokens: 80 }));
    now += 30_000;
    const refused = s.admit(ask([tpm], { tokens: 30 }));
    expect(refused.refused).toBe(0);
    expect(refused.waitMs).toBe(30_000);
    now += 30_000;
    s.settle({ counters: [tpm], bucket: first.bucket, tokensDelta: 500, quotaDelta: 0, lease: "x" });
    const ok = s.admit(ask([tpm], { tokens: 30 }));
    expect(ok.refused).toBe(-1);
    expect(ok.states[0]!.used).toBe(30);
  });

  it("a concurrency lease never released expires", () => {
    let now = 3_000_000;
    const s = new MemoryLimitStore(() => now);
    const conc = { kind: "concurrency" as const, key: "c", limit: 1 };
    expect(s.admit(ask([conc], { leaseMs: 5000 })).refused).toBe(-1);
    expect(s.admit(ask([conc])).refused).toBe(0);
    now += 5000;
    expect(s.admit(ask([conc])).refused).toBe(-1);
  });
});
