import { describe, expect, it } from "vitest";
import { forgetChannel, MAX_SESSIONS, rememberChannel, rememberedSessions, StickySession, stickyChannelId } from "./session-sticky";

const session = (name: string, ttlMs = 60_000) => new StickySession(`test\n${name}`, "00000000", ttlMs);

describe("the sticky session map", () => {
  it("keeps a session's channel for its TTL after the last answer", () => {
    const s = session("ttl", 1000);
    rememberChannel(s, 7, 10_000);
    expect(stickyChannelId(s, 10_999)).toBe(7);
    // Each answer starts the TTL again.
    rememberChannel(s, 7, 10_500);
    expect(stickyChannelId(s, 11_499)).toBe(7);
    expect(stickyChannelId(s, 11_500)).toBeNull();
  });

  it("forgets a session only for the channel that failed", () => {
    const s = session("forget");
    rememberChannel(s, 3);
    forgetChannel(s, 4);
    expect(stickyChannelId(s)).toBe(3);
    forgetChannel(s, 3);
    expect(stickyChannelId(s)).toBeNull();
  });

  it("holds at most MAX_SESSIONS, dropping the least recently answered", () => {
    const oldest = session("oldest");
    const kept = session("kept");
    rememberChannel(oldest, 1);
    rememberChannel(kept, 2);
    for (let i = 0; i < MAX_SESSIONS; i++) {
      // Answered again halfway: no longer the least recent.
      if (i === MAX_SESSIONS / 2) rememberChannel(kept, 2);
      rememberChannel(session(`filler-${i}`), 9);
    }
    expect(rememberedSessions()).toBe(MAX_SESSIONS);
    expect(stickyChannelId(oldest)).toBeNull();
    expect(stickyChannelId(kept)).toBe(2);
  });
});
