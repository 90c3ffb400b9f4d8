// Multi-key channels through the relay (issue 26): a mock OpenAI upstream on loopback that answers
// 401 for the keys a test names and 200 for the others, read from the Authorization header. Random
// mode spreads over the keys, polling takes them in order, a refused key is disabled alone (the
// channel keeps serving with the others) until none is left, each key's usage matches the logs,
// and no key is ever shown in an answer, a log row or a disable reason.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { LOG_TYPE } from "@/lib/logs/write";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { ALL_KEYS_DISABLED } from "@/lib/channels/key-state";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
// Not shaped like any vendor's key, so only the relay's knowledge of the channel's keys can hide them.
const KEYS = ["mk-alpha-key-0001", "mk-bravo-key-0002", "mk-charlie-key-0003"];
const [A, B, C] = KEYS as [string, string, string];

for (const entry of ENTRIES) {
  describe(`multi-key channels (${entry} entry)`, () => {
    const rejected = new Set<string>();
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;

    beforeAll(async () => {
      mock = await startOpenAIMock({ rejectedKeys: rejected });
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await updateOption("RetryTimes", "0");
      await updateOption("AutomaticDisableChannelEnabled", "false");
    });
    beforeEach(async () => {
      mock.reset();
      rejected.clear();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      await updateOption("AutomaticDisableChannelEnabled", "true");
      user = await seedUser();
    });

    const chat = () =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
      });
    const keysSent = () => mock.requests.map((r) => String(r.headers.authorization).slice("Bearer ".length));
    const keyRow = async (channelId: number, key: string) =>
      (await getDb()).channelKey.findUnique({ where: { channel_id_key_hash: { channel_id: channelId, key_hash: channelKeyHash(key) } } });

    it("random mode spreads requests over every key, one key per request", async () => {
      await seedChannel({ base_url: mock.url, models: MODEL, key: KEYS.join("\n"), multi_key_mode: "random" });
      for (let i = 0; i < 60; i++) expect((await chat()).status).toBe(200);
      const sent = keysSent();
      expect(sent).toHaveLength(60);
      for (const key of KEYS) expect(sent.filter((k) => k === key).length).toBeGreaterThan(5);
      expect(sent.every((k) => KEYS.includes(k))).toBe(true);
    });

    it("polling mode takes the keys in order", async () => {
      await seedChannel({ base_url: mock.url, models: MODEL, key: ` ${A}\n\n${B}\n${C}\n${A}\n`, multi_key_mode: "polling" });
      for (let i = 0; i < 6; i++) expect((await chat()).status).toBe(200);
      expect(keysSent()).toEqual([A, B, C, A, B, C]);
    });

    it("a key the upstream refuses is disabled alone; the retry and later requests use the other keys", async () => {
      await updateOption("RetryTimes", "1");
      const ch = await seedChannel({ base_url: mock.url, models: MODEL, key: KEYS.join("\n"), multi_key_mode: "polling" });
      rejected.add(B);
      expect((await chat()).status).toBe(200); // A
      expect((await chat()).status).toBe(200); // B refused, then C on the same channel
      await vi.waitFor(async () => expect((await keyRow(ch.id, B))?.status).toBe(3));
      const row = await keyRow(ch.id, B);
      expect(row!.disabled_reason).toMatch(/^状态码 401：Incorrect API key provided: \*\*\*/);
      expect(row!.disabled_time).toBeGreaterThan(0);
      for (let i = 0; i < 4; i++) expect((await chat()).status).toBe(200);
      expect(keysSent()).toEqual([A, B, C, A, C, A, C]);
      await expect((await getDb()).channel.findUniqueOrThrow({ where: { id: ch.id } })).resolves.toMatchObject({ status: 1 });
      expect((await keyRow(ch.id, A))?.status ?? 1).toBe(1);
    });

    it("with auto-disable off, a refused key stays enabled and the next key is still tried", async () => {
      await updateOption("AutomaticDisableChannelEnabled", "false");
      await updateOption("RetryTimes", "1");
      const ch = await seedChannel({ base_url: mock.url, models: MODEL, key: KEYS.join("\n"), multi_key_mode: "polling" });
      rejected.add(A);
      expect((await chat()).status).toBe(200);
      expect(keysSent()).toEqual([A, B]);
      expect(await keyRow(ch.id, A)).toBeNull();
    });

    it("when every key is refused the channel itself is auto-disabled, and no key shows anywhere", async () => {
      await updateOption("RetryTimes", "2");
      const ch = await seedChannel({ base_url: mock.url, models: MODEL, key: KEYS.join("\n"), multi_key_mode: "random" });
      for (const key of KEYS) rejected.add(key);
      const res = await chat();
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(new Set(keysSent())).toEqual(new Set(KEYS));
      const db = await getDb();
      await vi.waitFor(async () => expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(3));
      const channel = await db.channel.findUniqueOrThrow({ where: { id: ch.id } });
      expect(JSON.parse(channel.other_info).status_reason).toMatch(new RegExp(`^${ALL_KEYS_DISABLED}：状态码 401`));
      for (const key of KEYS) expect((await keyRow(ch.id, key))?.status).toBe(3);
      // The channel is out of the routing table: the next call finds no channel.
      expect((await chat()).status).toBe(404);
      await settleAll();
      const logs = await db.log.findMany({ where: { user_id: user.id } });
      const reasons = await db.channelKey.findMany({ where: { channel_id: ch.id } });
      const seen = [
        body,
        channel.other_info,
        JSON.stringify(logs.map((l) => [l.content, l.other])),
        JSON.stringify(reasons.map((r) => r.disabled_reason)),
      ].join("\n");
      for (const key of KEYS) expect(seen).not.toContain(key);
      expect(logs.some((l) => l.content.includes("Incorrect API key provided"))).toBe(true);
    });

    it("each key's used_quota and request_count match the log rows exactly", async () => {
      const ch = await seedChannel({ base_url: mock.url, models: MODEL, key: KEYS.join("\n"), multi_key_mode: "random" });
      await Promise.all(Array.from({ length: 30 }, () => chat().then((r) => r.text())));
      await settleAll();
      const db = await getDb();
      const logs = await db.log.findMany({ where: { user_id: user.id, type: LOG_TYPE.consume } });
      expect(logs).toHaveLength(30);
      const byIndex = new Map<number, { quota: bigint; count: number }>();
      for (const log of logs) {
        const info = JSON.parse(log.other).admin_info;
        expect(info.is_multi_key).toBe(true);
        const sum = byIndex.get(info.multi_key_index) ?? { quota: 0n, count: 0 };
        sum.quota += log.quota;
        sum.count++;
        byIndex.set(info.multi_key_index, sum);
      }
      for (const [index, key] of KEYS.entries()) {
        const row = await keyRow(ch.id, key);
        const expected = byIndex.get(index) ?? { quota: 0n, count: 0 };
        expect({ quota: row?.used_quota ?? 0n, count: row?.request_count ?? 0 }).toEqual(expected);
      }
      const channel = await db.channel.findUniqueOrThrow({ where: { id: ch.id } });
      expect(channel.used_quota).toBe(logs.reduce((s, l) => s + l.quota, 0n));
    });

    it("a channel of one key is untouched: its whole key field is sent, and no key rows are written", async () => {
      const ch = await seedChannel({ base_url: mock.url, models: MODEL, key: "sk-single-upstream" });
      expect((await chat()).status).toBe(200);
      await settleAll();
      expect(keysSent()).toEqual(["sk-single-upstream"]);
      expect(await (await getDb()).channelKey.count({ where: { channel_id: ch.id } })).toBe(0);
    });
  });
}
