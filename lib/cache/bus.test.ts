// The invalidation bus's promise: publishInvalidation resolves once this process's listeners and
// the other processes (reached through remote publishers) have applied the event.
import { afterEach, describe, expect, it, vi } from "vitest";
import { addRemotePublisher, deliverLocally, onInvalidation, publishInvalidation } from "@/lib/cache/bus";
import { APPLY_WAIT_MS, applyWaits } from "@/lib/server/ipc";

const undo: (() => void)[] = [];
afterEach(() => {
  for (const u of undo.splice(0)) u();
  vi.useRealTimers();
});

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** Whether `p` has resolved once pending callbacks have run. */
async function isDone(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("publishInvalidation", () => {
  it("resolves once a listener's background work and every remote publisher's delivery have ended", async () => {
    const reload = gate();
    const remote = gate();
    undo.push(onInvalidation((e) => (e.kind === "options" ? reload.opened : undefined)));
    undo.push(addRemotePublisher(() => remote.opened));

    const published = publishInvalidation({ kind: "options" });
    expect(await isDone(published)).toBe(false);
    reload.open();
    expect(await isDone(published)).toBe(false);
    remote.open();
    expect(await isDone(published)).toBe(true);
  });

  it("does not wait when no listener has background work, and ignores what a listener returns that is not a promise", async () => {
    const seen: string[] = [];
    undo.push(onInvalidation((e) => seen.push(e.kind)));
    expect(await isDone(publishInvalidation({ kind: "channels" }))).toBe(true);
    expect(seen).toEqual(["channels"]);
  });

  it("resolves even when a listener's work fails or a listener throws", async () => {
    undo.push(onInvalidation(() => Promise.reject(new Error("reload failed"))));
    undo.push(
      onInvalidation(() => {
        throw new Error("listener broke");
      }),
    );
    await expect(deliverLocally({ kind: "user", id: 1 }, true)).resolves.toBeUndefined();
    await expect(publishInvalidation({ kind: "user", id: 1 })).resolves.toBeUndefined();
  });
});

describe("applyWaits (the acknowledgements between the processes of npm start)", () => {
  it("resolves the wait whose id is acknowledged, not the others", async () => {
    const waits = applyWaits();
    const sent: number[] = [];
    const first = waits.wait((ack) => sent.push(ack));
    const second = waits.wait((ack) => sent.push(ack));
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toBe(sent[1]);
    waits.applied(sent[1]!);
    expect(await isDone(second)).toBe(true);
    expect(await isDone(first)).toBe(false);
    waits.applied(sent[0]!);
    expect(await isDone(first)).toBe(true);
  });

  it("gives up after APPLY_WAIT_MS when no acknowledgement comes (a stuck or gone process)", async () => {
    vi.useFakeTimers();
    const waits = applyWaits();
    let done = false;
    void waits.wait(() => undefined).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(APPLY_WAIT_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});
