// Names that are also Object.prototype's members (issue 20.10): as a key's group, the playground's
// group, a model name and a mapped model they are plain unknown names, never a group or a mapping
// found through the prototype.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { getOptions, updateOption } from "@/lib/options";
import { publishInvalidation } from "@/lib/cache/bus";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { sessionCookieFor } from "@/tests/helpers/api";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];

for (const entry of ENTRIES) {
  describe(`prototype names through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let savedRatio: string;

    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${relay.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const chat = (key: string, model: string) =>
      post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] }, { authorization: `Bearer ${key}` });

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      savedRatio = JSON.stringify((await getOptions()).ModelRatio);
    });
    afterAll(async () => {
      await updateOption("ModelRatio", savedRatio);
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    });

    it("a key's group named after a prototype member is refused as unusable, and nothing is billed or sent", async () => {
      for (const name of NAMES) {
        const u = await seedUser();
        await (await getDb()).token.update({ where: { id: u.tokenId }, data: { group: name } });
        publishInvalidation({ kind: "token", id: u.tokenId });
        const before = await u.quota();
        const res = await chat(u.key, "gpt-4o-mini");
        expect(res.status, name).toBe(403);
        expect((await res.json()).error.message).toMatch(`令牌分组 ${name} 已被禁用 (request id:`);
        await settleAll();
        expect(await u.quota()).toBe(before);
      }
      expect(mock.requests).toHaveLength(0);
    });

    it("the playground's group too", async () => {
      const u = await seedUser();
      const cookie = await sessionCookieFor(u.id);
      for (const name of NAMES) {
        const res = await post(
          "/pg/chat/completions",
          { model: "gpt-4o-mini", group: name, messages: [{ role: "user", content: "hi" }] },
          { cookie, "new-api-user": String(u.id) },
        );
        expect(res.status, name).toBe(403);
        expect((await res.json()).error.message).toMatch(`令牌分组 ${name} 已被禁用 (request id:`);
      }
      expect(mock.requests).toHaveLength(0);
    });

    it("as a model: no channel, or no price, never a crash", async () => {
      const u = await seedUser();
      for (const name of NAMES) {
        const none = await chat(u.key, name);
        expect(none.status, name).toBe(404);
        expect((await none.json()).error.message).toContain(name);
      }
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: NAMES.join(",") });
      for (const name of NAMES) {
        const unpriced = await chat(u.key, name);
        expect((await unpriced.json()).error.message, name).toContain("倍率或价格未配置");
      }
      expect(mock.requests).toHaveLength(0);
    });

    it("as a mapped model: sent upstream under its own name when the mapping has no such entry", async () => {
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: NAMES.join(","), model_mapping: '{"gpt-4o-mini":"gpt-4o"}' });
      // Priced, so the call gets as far as the mapping. (An option table drops a `__proto__` entry
      // when it is parsed, so that name stays unpriced: it was covered above.)
      const priced = NAMES.filter((n) => n !== "__proto__");
      await updateOption("ModelRatio", JSON.stringify({ ...JSON.parse(savedRatio), ...Object.fromEntries(priced.map((n) => [n, 1])) }));
      const u = await seedUser();
      for (const name of priced) {
        const res = await chat(u.key, name);
        expect(res.status, `${name}: ${res.status === 200 ? "" : await res.text()}`).toBe(200);
      }
      expect(mock.requests.map((r) => (r.json as { model: unknown }).model)).toEqual(priced);
    });
  });
}
