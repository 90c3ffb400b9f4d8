// The data dashboard's buckets through the real relay: each request is added to the bucket of the
// DataExportInterval in force when it settles (a change applies at once, no restart), with the
// quota its log row was charged, and nothing is recorded while DataExportEnabled is off.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

describe("usage buckets written by the relay", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;

  const chat = (key: string, model: string) =>
    fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    });

  beforeAll(async () => {
    mock = await startOpenAIMock();
    relay = await startRelay("node");
    await updateOption("ModelRatio", JSON.stringify({ ...DEFAULT_MODEL_RATIO, "m-flat": 1, "m-other": 1 }));
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: "m-flat,m-other" });
  });
  afterAll(async () => {
    await updateOption("DataExportEnabled", "true");
    await updateOption("DataExportInterval", "5");
    await settleAll();
    await relay.close();
    await mock.close();
  });

  it("follows DataExportInterval and DataExportEnabled as they change, without a restart", async () => {
    mock.setBehaviour({ usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } });
    const u = await seedUser();
    const db = await getDb();

    await updateOption("DataExportInterval", "1");
    const before = Math.floor(Date.now() / 1000);
    expect((await chat(u.key, "m-flat")).status).toBe(200);
    expect((await chat(u.key, "m-flat")).status).toBe(200);
    const after = Math.floor(Date.now() / 1000);

    await updateOption("DataExportInterval", "1440");
    expect((await chat(u.key, "m-other")).status).toBe(200);

    await updateOption("DataExportEnabled", "false");
    expect((await chat(u.key, "m-other")).status).toBe(200);
    expect((await chat(u.key, "m-flat")).status).toBe(200);
    await settleAll();

    const rows = await db.quotaData.findMany({ where: { user_id: u.id }, orderBy: { id: "asc" } });
    const logs = await db.log.findMany({ where: { user_id: u.id, type: 2 }, orderBy: { id: "asc" } });
    expect(logs).toHaveLength(5);
    const minute = rows.filter((r) => r.model_name === "m-flat");
    const day = rows.filter((r) => r.model_name === "m-other");
    // The two minute-wide requests share a bucket unless a minute boundary fell between them.
    expect(minute.reduce((s, r) => s + r.count, 0)).toBe(2);
    for (const r of minute) {
      expect(r.created_at % 60).toBe(0);
      expect(r.created_at).toBeGreaterThanOrEqual(before - 59);
      expect(r.created_at).toBeLessThanOrEqual(after);
      expect(r.username).toBe(u.username);
    }
    expect(day).toHaveLength(1);
    expect(day[0]!.created_at % 86400).toBe(0);
    expect(day[0]!.count).toBe(1);
    expect(day[0]!.token_used).toBe(42n);
    expect(day[0]!.quota).toBe(logs[2]!.quota);
    expect(minute.reduce((s, r) => s + r.quota, 0n)).toBe(logs[0]!.quota + logs[1]!.quota);
  });
});
