// Channels of a type the relay does not serve (lib/relay/providers: a "not relayed" registry
// entry) never take traffic: the router skips them, so a request goes to a channel that can serve
// it, and with none the caller gets the usual no-channel answer. Upstream: the OpenAI mock.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { relayRefusal } from "@/lib/relay/providers";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import {
  clearRelayData,
  ENTRIES,
  seedChannel,
  seedNotRelayedChannel,
  seedUser,
  settleAll,
  startRelay,
  type RelayServer,
} from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const CLAUDE = "claude-3-haiku-20240307";

for (const entry of ENTRIES) {
  describe(`not-relayed channel types through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let client: OpenAI;
    let claude: { id: number };
    let openai: { id: number };

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      // No retries: had the router picked the Claude channel, the request would fail.
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      claude = await seedNotRelayedChannel(36, { base_url: mock.url, models: `${MODEL},${CLAUDE}`, priority: 10 });
      openai = await seedChannel({ base_url: mock.url, models: MODEL, priority: 0 });
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("serves the request on the lower-priority channel that relays, charging no error", async () => {
      const before = await user.quota();
      for (let i = 0; i < 4; i++) {
        const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
        expect(res.choices[0]!.message.content).toBe("Hello! How can I help you today?");
      }
      const stream = await client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: "user", content: "hi" }] });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      expect(text).toBe("Hello! How can I help you today?");
      expect(mock.requests.map((r) => r.kind)).toEqual(["chat", "chat", "chat", "chat", "chat"]);
      await settleAll();
      const db = await getDb();
      const logs = await db.log.findMany({ where: { user_id: user.id } });
      expect(logs.map((l) => [l.type, l.channel_id])).toEqual(Array(5).fill([2, openai.id]));
      expect(await db.log.count({ where: { channel_id: claude.id } })).toBe(0);
      const charged = logs.reduce((sum, l) => sum + l.quota, 0n);
      expect(charged).toBeGreaterThan(0n);
      expect(before - (await user.quota())).toBe(charged);
      const row = await db.channel.findUniqueOrThrow({ where: { id: claude.id } });
      expect(row).toMatchObject({ status: 1, used_quota: 0n });
    });

    it("answers the usual no-channel error when only a not-relayed channel has the model, and lists it nowhere", async () => {
      const before = await user.quota();
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${user.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ model: CLAUDE, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { message: string; code: string } };
      expect(body.error).toMatchObject({
        type: "invalid_request_error",
        code: "model_not_found",
        message: expect.stringContaining(`当前分组 default 下对于模型 ${CLAUDE} 无可用渠道`),
      });
      expect(mock.requests).toHaveLength(0);
      const models = (await client.models.list()).data.map((m) => m.id);
      expect(models).toContain(MODEL);
      expect(models).not.toContain(CLAUDE);
      await settleAll();
      expect(await (await getDb()).log.count({ where: { user_id: user.id } })).toBe(0);
      expect(await user.quota()).toBe(before);
    });

    it("answers an admin's key pinned to a not-relayed channel with the reason, charging nothing", async () => {
      const admin = await seedUser({ role: 10 });
      const before = await admin.quota();
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${admin.key}-${claude.id}`, "Content-Type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string; code: string } };
      expect(body.error).toMatchObject({ code: "invalid_api_type", message: expect.stringContaining(relayRefusal(36)!) });
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await (await getDb()).log.count({ where: { user_id: admin.id } })).toBe(0);
      expect(await admin.quota()).toBe(before);
    });
  });
}
