// Operation-tab options that change what the relay does: QuotaPerUnit prices per-call models,
// PreConsumedQuota sizes the hold of a request without max_tokens, DisplayTokenStatEnabled chooses
// whose balance the billing endpoints report. Each is changed through updateOption, as the
// settings page does (PUT /api/option/), and takes effect on the next request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { explainCharge, parseOther } from "@/lib/logs/display";
import { getOptions, updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

let mock: OpenAIMock;
let relay: RelayServer;

const chat = (key: string, body: Record<string, unknown>) =>
  fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
  }).then(async (r) => ({ status: r.status, json: await r.json() }));

async function lastLog(userId: number) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });
}

beforeAll(async () => {
  mock = await startOpenAIMock();
  relay = await startRelay("node");
  await updateOption("ModelRatio", JSON.stringify({ "m-flat": 1 }));
  await updateOption("CompletionRatio", JSON.stringify({ "m-flat": 1 }));
  await updateOption("ModelPrice", JSON.stringify({ "m-price": 0.02 }));
});
afterAll(async () => {
  for (const key of ["QuotaPerUnit", "PreConsumedQuota", "DisplayTokenStatEnabled", "SelfUseModeEnabled"] as const)
    await updateOption(key, defaultRaw(key));
  await relay.close();
  await mock.close();
});
beforeEach(async () => {
  mock.reset();
  await clearRelayData();
  await seedChannel({ base_url: mock.url, models: "m-flat,m-price,m-unpriced" });
});

describe("QuotaPerUnit", () => {
  it("prices per-call models: price × QuotaPerUnit × group ratio", async () => {
    const u = await seedUser();
    await updateOption("QuotaPerUnit", "500000");
    expect((await chat(u.key, { model: "m-price" })).status).toBe(200);
    await settleAll();
    expect((await lastLog(u.id)).quota).toBe(10_000n);

    await updateOption("QuotaPerUnit", "1000000");
    expect((await chat(u.key, { model: "m-price" })).status).toBe(200);
    await settleAll();
    // 0.02 × 1 000 000 × 1
    expect((await lastLog(u.id)).quota).toBe(20_000n);
    expect((await lastLog(u.id)).content).toContain("模型价格 0.02");
    // The log row's expanded billing explains the charge with the same option (not 500 000).
    const row = await lastLog(u.id);
    const explained = explainCharge(row, parseOther(row.other), (await getOptions()).QuotaPerUnit);
    expect(explained?.formula).toBe("$0.02 × 1 × 1000000 = 20000");
    expect(explained?.computed).toBe(Number(row.quota));
  });

  it("leaves token-ratio models alone (ratio 1 = 1 quota per token)", async () => {
    await updateOption("QuotaPerUnit", "1000000");
    mock.setBehaviour({ usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
    const u = await seedUser();
    expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    await settleAll();
    expect((await lastLog(u.id)).quota).toBe(120n);
  });
});

describe("PreConsumedQuota", () => {
  it("is the completion budget reserved when a request sets no max_tokens", async () => {
    const u = await seedUser({ quota: 3000 });
    await updateOption("PreConsumedQuota", "5000");
    const refused = await chat(u.key, { model: "m-flat" });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("insufficient_user_quota");
    expect(mock.requests).toHaveLength(0);

    // 0 reserves the prompt only (it used to fall back to 500).
    await updateOption("PreConsumedQuota", "0");
    const small = await seedUser({ quota: 400 });
    expect((await chat(small.key, { model: "m-flat" })).status).toBe(200);
    expect((await chat(u.key, { model: "m-flat" })).status).toBe(200);
    expect(mock.requests).toHaveLength(2);
  });
});

describe("DisplayTokenStatEnabled", () => {
  it("makes the billing endpoints report a limited key's own quota instead of its owner's", async () => {
    const u = await seedUser({ quota: 5_000_000, token: { unlimited_quota: false, remain_quota: 500_000 } });
    const subscription = async () => {
      const r = await fetch(`${relay.url}/v1/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${u.key}` } });
      return (await r.json()).hard_limit_usd as number;
    };
    await updateOption("QuotaPerUnit", "500000");
    await updateOption("DisplayTokenStatEnabled", "true");
    expect(await subscription()).toBe(1);
    await updateOption("DisplayTokenStatEnabled", "false");
    expect(await subscription()).toBe(10);
  });
});

describe("SelfUseModeEnabled (the rule for unpriced models)", () => {
  it("refuses a model with no ratio or price before any upstream call, unless self-use mode is on", async () => {
    const u = await seedUser();
    await updateOption("SelfUseModeEnabled", "false");
    const refused = await chat(u.key, { model: "m-unpriced" });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe("model_price_error");
    expect(mock.requests).toHaveLength(0);

    await updateOption("SelfUseModeEnabled", "true");
    mock.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 } });
    expect((await chat(u.key, { model: "m-unpriced" })).status).toBe(200);
    await settleAll();
    // The default ratio 37.5: 37.5 × (10 + 6 × 1) = 600
    expect((await lastLog(u.id)).quota).toBe(600n);
  });
});
