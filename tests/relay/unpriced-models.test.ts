// Models without a price (issue 20.17): the relay refuses them (倍率或价格未配置), so no model list a
// user picks from offers them. /v1/models in OpenAI's, Anthropic's and Gemini's shapes, through
// both relay entries, with and without a key's model limits; GET /api/user/models (the token
// page's model limits, the playground and the settings' list read the same lib/ function). All
// of them use the relay's own test (lib/billing/ratios.ts isModelPriced): a pattern entry prices a
// model, self-use mode prices all, and a price set later shows the model at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateOption } from "@/lib/options";
import * as userModels from "@/app/api/user/models/route";
import { call, createUser } from "@/tests/helpers/api";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

const SERVED = "m-priced,m-per-call,m-pattern-7b,m-unpriced";
const PRICED = ["m-pattern-7b", "m-per-call", "m-priced"];

async function priceOnly() {
  await updateOption("ModelRatio", JSON.stringify({ "m-priced": 1, "m-pattern-*": 2 }));
  await updateOption("ModelPrice", JSON.stringify({ "m-per-call": 0.01 }));
  await updateOption("SelfUseModeEnabled", "false");
}

for (const entry of ENTRIES) {
  describe(`model lists through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    const get = async (path: string, key: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${relay.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
      return { status: res.status, json: await res.json() };
    };
    const openAIIds = async (key: string) => (await get("/v1/models", key)).json.data.map((m: { id: string }) => m.id);

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await updateOption("SelfUseModeEnabled", "false");
    });
    beforeEach(async () => {
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: SERVED, group: "default" });
      await priceOnly();
    });

    it("lists only priced models, in every caller's shape, and answers 404 for an unpriced one", async () => {
      const u = await seedUser();
      expect(await openAIIds(u.key)).toEqual(PRICED);
      const one = await get("/v1/models/m-unpriced", u.key);
      expect(one.status).toBe(404);
      expect(one.json.error.code).toBe("model_not_found");
      expect((await get("/v1/models/m-priced", u.key)).json.id).toBe("m-priced");

      const anthropic = await get("/v1/models", u.key, { "anthropic-version": "2023-06-01" });
      expect(anthropic.json.data.map((m: { id: string }) => m.id)).toEqual(PRICED);
      const gemini = await fetch(`${relay.url}/v1beta/models`, { headers: { "x-goog-api-key": u.key } });
      const names = ((await gemini.json()).models as { name: string }[]).map((m) => m.name);
      expect(names).toEqual(PRICED.map((m) => `models/${m}`));

      // The list says what the relay does: the unpriced model is refused, a listed one is served.
      const refused = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m-unpriced", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.message).toContain("倍率或价格未配置");
    });

    it("filters a key's model limits the same way", async () => {
      const u = await seedUser({ token: { model_limits_enabled: true, model_limits: "m-unpriced,m-priced" } });
      expect(await openAIIds(u.key)).toEqual(["m-priced"]);
    });

    it("follows the options: a price set later, and self-use mode, list the model at once", async () => {
      const u = await seedUser();
      expect(await openAIIds(u.key)).not.toContain("m-unpriced");
      await updateOption("ModelRatio", JSON.stringify({ "m-priced": 1, "m-pattern-*": 2, "m-unpriced": 0.5 }));
      expect(await openAIIds(u.key)).toContain("m-unpriced");
      await priceOnly();
      expect(await openAIIds(u.key)).not.toContain("m-unpriced");
      await updateOption("SelfUseModeEnabled", "true");
      expect(await openAIIds(u.key)).toEqual([...PRICED, "m-unpriced"].sort());
    });
  });
}

describe("GET /api/user/models", () => {
  let mock: OpenAIMock;
  beforeAll(async () => {
    mock = await startOpenAIMock();
  });
  afterAll(async () => {
    await mock.close();
    await updateOption("SelfUseModeEnabled", "false");
  });

  it("offers only the models the relay can bill (token model limits, playground, settings)", async () => {
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: SERVED, group: "default" });
    await priceOnly();
    const user = await createUser({ username: `um${Date.now().toString(36)}` });
    const list = async () => (await call(userModels.GET, "GET", "/api/user/models", { as: user })).json.data;
    expect(await list()).toEqual(PRICED);
    await updateOption("SelfUseModeEnabled", "true");
    expect(await list()).toEqual([...PRICED, "m-unpriced"].sort());
  });
});
