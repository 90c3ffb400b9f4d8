// Sessions stick to a channel (issue 22 item 5): calls naming the same session go to the channel
// that answered the last one while it serves, so the vendor's prompt cache hits; a failure moves
// the session to the channel that answers instead; SessionStickyTTLSeconds 0 turns it off; the log
// row says when the sticky channel answered, with a hash of the session, never the session itself.
// Two OpenAI channels of the same model, priority and weight, each its own mock, through both entries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const CALLS = 20;

for (const entry of ENTRIES) {
  describe(`session stickiness (${entry} entry)`, () => {
    let a: OpenAIMock;
    let b: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let openai: OpenAI;
    let sessions = 0;
    /** A session id no earlier test used: the sticky map lives as long as the process. */
    const newSession = () => `${entry}-session-${Date.now().toString(36)}-${++sessions}`;
    const chat = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
      openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }], ...extra }, { headers });
    /** How many calls each mock took. */
    const served = () => ({ a: a.requests.length, b: b.requests.length });

    beforeAll(async () => {
      a = await startOpenAIMock();
      b = await startOpenAIMock();
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await a.close();
      await b.close();
      await updateOption("RetryTimes", "0");
      await updateOption("SessionStickyTTLSeconds", "3600");
    });
    beforeEach(async () => {
      a.reset();
      b.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      await updateOption("SessionStickyTTLSeconds", "3600");
      await seedChannel({ base_url: a.url, models: MODEL });
      await seedChannel({ base_url: b.url, models: MODEL });
      user = await seedUser();
      openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("sends every call of a Claude Code session to one channel", async () => {
      const session = newSession();
      for (let i = 0; i < CALLS; i++) await chat({ "x-claude-code-session-id": session });
      const { a: onA, b: onB } = served();
      // Unheld, two equal channels would both be hit 20 times in a row with a chance of 2^-19.
      expect([onA, onB].sort()).toEqual([0, CALLS]);
    });

    it("lets other sessions go to either channel", async () => {
      // Sixteen sessions of one call each: all on one channel by chance 2^-15.
      for (let i = 0; i < 16; i++) await chat({ "x-claude-code-session-id": newSession() });
      expect(a.requests.length).toBeGreaterThan(0);
      expect(b.requests.length).toBeGreaterThan(0);
    });

    it("reads the session from Codex's and OpenCode's headers, prompt_cache_key and Anthropic's metadata.user_id", async () => {
      const ways: Array<[string, () => Promise<unknown>]> = [];
      const codex = newSession();
      ways.push(["session_id", () => chat({ session_id: codex })]);
      const conversation = newSession();
      ways.push(["conversation_id", () => chat({ conversation_id: conversation })]);
      // Codex 0.17x and OpenCode, as recorded (tests/fixtures/agents).
      const codexNew = newSession();
      ways.push(["session-id", () => chat({ "session-id": codexNew, "thread-id": codexNew })]);
      const opencode = `ses_${newSession()}`;
      ways.push(["x-session-affinity", () => chat({ "x-session-affinity": opencode, "x-session-id": opencode })]);
      const cacheKey = newSession();
      ways.push(["chat prompt_cache_key", () => chat({}, { prompt_cache_key: cacheKey })]);
      const responsesKey = newSession();
      ways.push([
        "Responses prompt_cache_key",
        () => openai.responses.create({ model: MODEL, input: "hi", prompt_cache_key: responsesKey }),
      ]);
      const anthropic = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
      const claudeUser = `user_${newSession()}`;
      ways.push([
        "metadata.user_id",
        () =>
          anthropic.messages.create({
            model: MODEL,
            max_tokens: 32,
            metadata: { user_id: claudeUser },
            messages: [{ role: "user", content: "hi" }],
          }),
      ]);
      for (const [way, call] of ways) {
        a.reset();
        b.reset();
        for (let i = 0; i < 12; i++) await call();
        expect([a.requests.length, b.requests.length].sort(), way).toEqual([0, 12]);
      }
    });

    it("moves a session to the other channel when its channel fails, and keeps it there", async () => {
      await updateOption("RetryTimes", "1");
      const session = newSession();
      await chat({ "x-claude-code-session-id": session });
      const [first, other] = a.requests.length === 1 ? [a, b] : [b, a];
      // The sticky channel answers 500 once: the call fails over, and the other channel answers.
      first.setBehaviour({ failStatus: 500, failTimes: 1 });
      const moved = await chat({ "x-claude-code-session-id": session });
      expect(moved.choices[0]!.message.content).toBeTruthy();
      expect(first.requests).toHaveLength(2);
      expect(other.requests).toHaveLength(1);
      // The first channel serves again, but the session stays where it was answered.
      for (let i = 0; i < 10; i++) await chat({ "x-claude-code-session-id": session });
      expect(first.requests).toHaveLength(2);
      expect(other.requests).toHaveLength(11);
    });

    it("routes the next call afresh when the sticky channel's failure ended the call", async () => {
      const session = newSession();
      await chat({ "x-claude-code-session-id": session });
      const [first, other] = a.requests.length === 1 ? [a, b] : [b, a];
      first.setBehaviour({ failStatus: 500 });
      // No retry left: this call fails on its sticky channel, which the session then forgets.
      await expect(chat({ "x-claude-code-session-id": session })).rejects.toBeInstanceOf(OpenAI.InternalServerError);
      // Routed as any call until one answers: the failing channel is hit only by chance, and the
      // first call that the other channel answers holds the session there.
      for (let i = 0; i < CALLS && other.requests.length === 0; i++) await chat({ "x-claude-code-session-id": session }).catch(() => null);
      expect(other.requests).toHaveLength(1);
      first.setBehaviour(null);
      const before = first.requests.length;
      for (let i = 0; i < 5; i++) await chat({ "x-claude-code-session-id": session });
      expect(first.requests).toHaveLength(before);
      expect(other.requests).toHaveLength(6);
    });

    it("holds no session when SessionStickyTTLSeconds is 0", async () => {
      await updateOption("SessionStickyTTLSeconds", "0");
      const session = newSession();
      for (let i = 0; i < CALLS; i++) await chat({ "x-claude-code-session-id": session });
      // Weighted random again: both channels take calls (all on one by chance 2^-19).
      expect(a.requests.length).toBeGreaterThan(0);
      expect(b.requests.length).toBeGreaterThan(0);
      await settleAll();
      const rows = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 } });
      expect(rows).toHaveLength(CALLS);
      for (const row of rows) expect(JSON.parse(row.other)).not.toHaveProperty("session");
    });

    it("says in the log row when the sticky channel answered, with the session's hash only", async () => {
      const session = newSession();
      await chat({ "x-claude-code-session-id": session });
      await chat({ "x-claude-code-session-id": session });
      await chat();
      await settleAll();
      const rows = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });
      expect(rows).toHaveLength(3);
      const [first, second, none] = rows.map((r) => JSON.parse(r.other));
      // The first call chose the channel; the second was sent there because of the session.
      expect(first.session).toMatch(/^[0-9a-f]{8}$/);
      expect(first).not.toHaveProperty("sticky");
      expect(second).toMatchObject({ session: first.session, sticky: true });
      expect(rows[1]!.channel_id).toBe(rows[0]!.channel_id);
      for (const row of rows) expect(row.other).not.toContain(session);
      // A call naming no session has neither field.
      expect(none).not.toHaveProperty("session");
      expect(none).not.toHaveProperty("sticky");
    });
  });
}
