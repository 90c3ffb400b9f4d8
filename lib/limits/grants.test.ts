// Shares of the limits granted by the primary to its relay workers (lib/limits/grants.ts over
// lib/server/limits-ipc.ts): a primary and two workers in this process, their messages passed as
// the cluster's IPC passes them (in order, each on a later turn of the event loop). Far from a
// limit a worker admits in its own memory; near it, every call goes to the primary, which asks
// unused shares back before refusing: the workers together admit exactly the limit.
import { afterEach, describe, expect, it } from "vitest";
import type { GrantingStore } from "@/lib/limits/grants";
import { type AdmitAnswer, type AdmitAsk, type CounterSpec, GRANT_MS, MemoryLimitStore } from "@/lib/limits/store";
import { type LimitsPeer, limitsServer, limitsViaParent } from "@/lib/server/limits-ipc";

type Worker = { store: GrantingStore; peer: LimitsPeer; exit(): void };

function cluster(size: number) {
  const counters = new MemoryLimitStore();
  const primary = limitsServer(counters);
  const workers: Worker[] = [];
  for (let i = 0; i < size; i++) {
    let alive = true;
    const later = (f: () => void) => setImmediate(() => alive && f());
    let onMessage: (m: unknown) => void = () => undefined;
    const peer: LimitsPeer = { send: (m) => later(() => onMessage(structuredClone(m))) };
    const child = limitsViaParent((ask, sent) => {
      later(() => primary.handle(structuredClone(ask), peer));
      sent?.();
    });
    onMessage = child.onMessage;
    workers.push({
      store: child.store,
      peer,
      exit() {
        alive = false;
        primary.gone(peer);
      },
    });
  }
  stores.push(...workers.map((w) => w.store));
  /** The primary's count of each counter, recording nothing. */
  const look = (specs: CounterSpec[]) =>
    counters.admit({ counters: specs, tokens: 0, quota: 0, lease: "", leaseMs: 0, record: false }).states.map((s) => s.used);
  return { workers, look };
}

const stores: GrantingStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.flush()));
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
const turn = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const admitted = (answers: AdmitAnswer[]) => answers.filter((a) => a.refused < 0).length;

describe("limit shares", () => {
  it("far from the limit, a worker admits in its own memory; reported, the primary's windows hold every call", async () => {
    const { workers, look } = cluster(1);
    const w = workers[0]!.store;
    const rpm: CounterSpec = { kind: "rpm", key: "rpm:a", limit: 1_000_000 };
    const tpm: CounterSpec = { kind: "tpm", key: "tpm:a", limit: 1_000_000_000 };
    let local = 0;
    for (let i = 0; i < 300; i++) {
      const answer = w.admit(ask([rpm, tpm], { tokens: 10 }));
      if (!(answer instanceof Promise)) local++;
      const a = await answer;
      expect(a.refused).toBe(-1);
      if (i % 40 === 0) await turn();
    }
    expect(local).toBeGreaterThan(200);
    // Unreported shares are held in full at the primary: it never counts less than was admitted.
    const [rpmHeld, tpmHeld] = look([rpm, tpm]);
    expect(rpmHeld).toBeGreaterThanOrEqual(300);
    expect(tpmHeld).toBeGreaterThanOrEqual(3000);
    await w.flush();
    await turn();
    expect(look([rpm, tpm])).toEqual([300, 3000]);
  });

  it("two workers in waves against a 400-rpm limit admit exactly 400: near it, the primary asks unused shares back", async () => {
    const { workers, look } = cluster(2);
    const rpm: CounterSpec = { kind: "rpm", key: "rpm:b", limit: 400 };
    const answers: AdmitAnswer[] = [];
    for (let wave = 0; wave < 40; wave++) {
      const calls = Array.from({ length: 25 }, (_, i) => workers[(i + wave) % 2]!.store.admit(ask([rpm])));
      answers.push(...(await Promise.all(calls)));
    }
    expect(admitted(answers)).toBe(400);
    // Shares were granted and used on both workers, yet not one call too many passed.
    expect(answers.filter((a) => a.local).length).toBeGreaterThan(50);
    const refused = answers.find((a) => a.refused === 0)!;
    expect(refused.waitMs).toBeGreaterThan(0);
    await Promise.all(workers.map((w) => w.store.flush()));
    await turn();
    expect(look([rpm])).toEqual([400]);
  });

  it("tpm and budget: corrections at settlement reach the primary, before and after the share is reported", async () => {
    const { workers, look } = cluster(1);
    const w = workers[0]!.store;
    const tpm: CounterSpec = { kind: "tpm", key: "tpm:c", limit: 10_000_000 };
    const budget: CounterSpec = { kind: "budget", key: "budget:c", limit: 100_000_000, seed: 0, ttlMs: 86_400_000 };
    const calls: { answer: AdmitAnswer; lease: string }[] = [];
    for (let i = 0; i < 60; i++) {
      const a = ask([tpm, budget], { tokens: 100, quota: 1000 });
      calls.push({ answer: await w.admit(a), lease: a.lease });
      await turn();
    }
    const settle = (c: { answer: AdmitAnswer; lease: string }) =>
      w.settle({
        counters: [tpm, budget],
        bucket: c.answer.bucket,
        tokensDelta: -40,
        quotaDelta: -300,
        lease: c.lease,
        local: c.answer.local,
      });
    // Half settle while their shares are open, half once every share has gone back.
    for (const c of calls.slice(0, 30)) settle(c);
    await sleep(GRANT_MS + 400);
    for (const c of calls.slice(30)) settle(c);
    await w.flush();
    await turn();
    await turn();
    expect(look([tpm, budget])).toEqual([60 * 60, 60 * 700]);
  });

  it("concurrency: a worker's idle slots go back; near the limit another worker gets the free ones; a gone worker's slots end", async () => {
    const { workers, look } = cluster(2);
    const [a, b] = workers as [Worker, Worker];
    const conc: CounterSpec = { kind: "concurrency", key: "conc:d", limit: 60 };
    // Worker a: 20 calls in flight, taken one by one (its holding grows with them).
    const held: { answer: AdmitAnswer; lease: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const x = ask([conc]);
      held.push({ answer: await a.store.admit(x), lease: x.lease });
      await turn();
    }
    expect(admitted(held.map((h) => h.answer))).toBe(20);
    expect(look([conc])[0]).toBeGreaterThanOrEqual(20);
    // Worker b asks for 50: exactly the 40 left are admitted, whatever a holds unused.
    const answers = await Promise.all(Array.from({ length: 50 }, () => b.store.admit(ask([conc]))));
    expect(admitted(answers)).toBe(40);
    // a's calls end; idle, its slots go back within a share's time and a tick.
    for (const h of held)
      a.store.settle({ counters: [conc], bucket: 0, tokensDelta: 0, quotaDelta: 0, lease: h.lease, local: h.answer.local });
    await sleep(GRANT_MS + 600);
    expect(look([conc])[0]).toBeLessThanOrEqual(40);
    // b exits with its calls in flight: its slots end with it (calls admitted at the primary keep their leases).
    b.exit();
    const left = look([conc])[0]!;
    const bAtPrimary = answers.filter((x) => x.refused < 0 && !x.local).length;
    expect(left).toBe(bAtPrimary);
  });

  it("a limit changed between calls gives back what was granted under the old one", async () => {
    const { workers, look } = cluster(1);
    const w = workers[0]!.store;
    const before: CounterSpec = { kind: "rpm", key: "rpm:e", limit: 1_000_000 };
    for (let i = 0; i < 5; i++) {
      await w.admit(ask([before]));
      await turn();
    }
    const after: CounterSpec = { ...before, limit: 2_000_000 };
    await w.admit(ask([after]));
    await turn();
    await w.flush();
    await turn();
    expect(look([after])).toEqual([6]);
  });
});
