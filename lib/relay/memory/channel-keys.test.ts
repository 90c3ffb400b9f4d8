import { describe, expect, it } from "vitest";
import { pickKey, resetKeyPolling } from "@/lib/relay/memory/channel-keys";
import type { RouteChannel, RouteKey } from "@/lib/relay/memory/key-user-channel-cache";

let nextId = 1;
function channel(mode: string, enabled: boolean[]): RouteChannel {
  const keys: RouteKey[] = enabled.map((on, index) => ({ text: `k${index}`, hash: `h${index}`, index, enabled: on }));
  return { row: { id: nextId++, multi_key_mode: mode }, keys } as unknown as RouteChannel;
}
const NONE = new Set<string>();

describe("pickKey", () => {
  it("is null for a channel of one key", () => {
    expect(pickKey({ row: { id: 1 }, keys: null } as unknown as RouteChannel, NONE)).toBeNull();
  });

  it("polling takes the enabled keys in turn, skipping disabled, tried and refused ones", () => {
    resetKeyPolling();
    const rc = channel("polling", [true, false, true, true]);
    expect(Array.from({ length: 6 }, () => pickKey(rc, NONE)!.index)).toEqual([0, 2, 3, 0, 2, 3]);
    expect(pickKey(rc, new Set(["h0"]))!.index).toBe(2);
    expect(pickKey(rc, NONE, (h) => h !== "h3")!.index).toBe(0);
    expect(pickKey(rc, new Set(["h0", "h2", "h3"]))).toBeNull();
  });

  it("random is uniform over the usable keys", () => {
    const rc = channel("random", [true, true, false, true]);
    const seen = [0, 0, 0, 0];
    for (let i = 0; i < 3000; i++) seen[pickKey(rc, NONE)!.index]!++;
    expect(seen[2]).toBe(0);
    for (const i of [0, 1, 3]) expect(seen[i]).toBeGreaterThan(800);
    // With a fixed draw: the n-th usable key.
    expect(pickKey(rc, new Set(["h0"]), undefined, () => 0.99)!.index).toBe(3);
    expect(
      pickKey(
        rc,
        NONE,
        (h) => h === "h1",
        () => 0.5,
      )!.index,
    ).toBe(1);
    expect(pickKey(rc, NONE, () => false)).toBeNull();
  });
});
