// Channel tests record response times and drive auto enable/disable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { setChannelStatus } from "@/lib/channels/routing";
import { channelJobDone } from "@/lib/channels/jobs";
import * as testOne from "@/app/api/channel/test/[id]/route";
import * as testAll from "@/app/api/channel/test/route";
import * as jobs from "@/app/api/channel/jobs/route";
import { startVendorAccountsMock } from "@/tests/mocks/vendor-accounts";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel } from "@/tests/helpers/relay";
import { relayRefusal } from "@/lib/relay/providers";
import { call, createUser } from "@/tests/helpers/api";

describe("channel tests", () => {
  let mock: OpenAIMock;
  let admin: { id: number; cookie: string };
  beforeAll(async () => {
    mock = await startOpenAIMock();
    admin = await createUser({ username: "tester-admin", role: 10 });
  });
  afterAll(async () => {
    await mock.close();
    await updateOption("AutomaticEnableChannelEnabled", "false");
    await updateOption("AutomaticDisableChannelEnabled", "false");
    await updateOption("ChannelDisableThreshold", "5");
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
    await updateOption("AutomaticEnableChannelEnabled", "false");
    await updateOption("AutomaticDisableChannelEnabled", "false");
    await updateOption("ChannelDisableThreshold", "5");
  });

  const testOf = (id: number, qs = "") =>
    call(testOne.GET, "GET", `/api/channel/test/${id}${qs}`, { as: admin, params: { id: String(id) } });
  const rowOf = async (id: number) => (await getDb()).channel.findUniqueOrThrow({ where: { id } });

  it("is billed to nobody and logged as a test for the admin who ran it", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini,gpt-4o", model_mapping: '{"gpt-4o":"gpt-4o-2024-08-06"}' });
    const db = await getDb();
    const quotaBefore = await db.user.findMany({ select: { id: true, quota: true, used_quota: true }, orderBy: { id: "asc" } });
    const res = await testOf(ch.id, "?model=gpt-4o");
    expect(res.json.success).toBe(true);
    expect(mock.requests[0]!.json).toMatchObject({ model: "gpt-4o-2024-08-06", max_tokens: 1 });
    const logs = await db.log.findMany({ where: { channel_id: ch.id } });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      user_id: admin.id,
      username: "tester-admin",
      type: 2,
      token_name: "模型测试",
      model_name: "gpt-4o",
      quota: 0n,
      content: `渠道 #${ch.id} 测试成功，不计费`,
    });
    expect(logs[0]!.prompt_tokens).toBeGreaterThan(0);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ channel_test: true });
    expect(await db.user.findMany({ select: { id: true, quota: true, used_quota: true }, orderBy: { id: "asc" } })).toEqual(quotaBefore);
    expect((await rowOf(ch.id)).used_quota).toBe(0n);

    mock.setBehaviour({ failStatus: 500 });
    const failed = await testOf(ch.id);
    expect(failed.json).toMatchObject({
      success: false,
      message: "The server had an error while processing your request. Sorry about that!",
    });
    const errorLog = await db.log.findFirstOrThrow({ where: { channel_id: ch.id, type: 5 } });
    expect(errorLog).toMatchObject({ user_id: admin.id, quota: 0n, token_name: "模型测试", model_name: "gpt-4o-mini" });
    expect(errorLog.content).toBe(`渠道 #${ch.id} 测试失败：The server had an error while processing your request. Sorry about that!`);
  });

  it("fails on a 200 answer that is not JSON (a proxy's page), disabling nothing", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    mock.setBehaviour({ failStatus: 200, failBody: "<html><body>Sign in to the proxy</body></html>" });
    const res = await testOf(ch.id);
    expect(res.json).toMatchObject({ success: false, message: "上游的应答不是 JSON (content-type: text/html)" });
    const row = await rowOf(ch.id);
    expect(row.status).toBe(1);
    expect(row.test_time).toBeGreaterThan(0);
  });

  it("tests an embedding-only vendor with an embedding, and says why a task-only type is not tested", async () => {
    const jina = await seedChannel({ type: 38, base_url: mock.url, models: "jina-embeddings-v3" });
    expect((await testOf(jina.id)).json.success).toBe(true);
    expect(mock.requests[0]).toMatchObject({
      path: "/v1/embeddings",
      kind: "embeddings",
      json: { model: "jina-embeddings-v3", input: "hi" },
    });
    await updateOption("AutomaticDisableChannelEnabled", "true");
    // A type that runs tasks only (Suno, Midjourney) has no chat to test: nothing is sent, the
    // test gives the registry's reason, and the channel stays enabled.
    const suno = await seedChannel({ type: 36, base_url: mock.url, models: "suno_music" });
    const refused = await testOf(suno.id);
    expect(refused.json).toMatchObject({ success: false, message: relayRefusal(36) });
    expect(refused.json.message).toBe("渠道类型「Suno API」只用于Suno 任务接口（/suno）");
    expect((await rowOf(suno.id)).status).toBe(1);
    expect(mock.requests).toHaveLength(1);
    const log = await (await getDb()).log.findFirstOrThrow({ where: { channel_id: suno.id } });
    expect(log).toMatchObject({ type: 5, quota: 0n, content: `渠道 #${suno.id} 测试失败：${relayRefusal(36)}` });
  });

  it("records the response time and test time, and answers 404 for a missing channel", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    mock.setBehaviour({ stallMs: 120 });
    const res = await testOf(ch.id);
    const row = await rowOf(ch.id);
    expect(row.response_time).toBeGreaterThanOrEqual(120);
    expect((res.json as { time?: number }).time).toBe(row.response_time / 1000);
    const missing = await call(testOne.GET, "GET", "/api/channel/test/999999", { as: admin, params: { id: "999999" } });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe("渠道不存在");
  });

  it("disables a channel slower than ChannelDisableThreshold, with the reason and time", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    await updateOption("ChannelDisableThreshold", "0.1");
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    const kept = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini", auto_ban: 0 });
    mock.setBehaviour({ stallMs: 250 });
    expect((await testOf(ch.id)).json.success).toBe(true);
    const row = await rowOf(ch.id);
    expect(row.status).toBe(3);
    const note = JSON.parse(row.other_info);
    expect(note.status_reason).toMatch(/^响应时间 0\.\d\ds 超过阈值 0\.1s$/);
    expect(note.status_time).toBeGreaterThan(0);
    await testOf(kept.id);
    expect((await rowOf(kept.id)).status).toBe(1);
    // A slow channel is not re-enabled, however AutomaticEnableChannelEnabled is set.
    await updateOption("AutomaticEnableChannelEnabled", "true");
    await testOf(ch.id);
    expect((await rowOf(ch.id)).status).toBe(3);
  });

  it("disables a channel whose key is dead only when AutomaticDisableChannelEnabled; a server error disables nothing", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    mock.setBehaviour({ failStatus: 401 });
    await testOf(ch.id);
    expect((await rowOf(ch.id)).status).toBe(1);
    await updateOption("AutomaticDisableChannelEnabled", "true");
    mock.setBehaviour({ failStatus: 503 });
    await testOf(ch.id);
    expect((await rowOf(ch.id)).status).toBe(1);
    mock.setBehaviour({ failStatus: 401 });
    expect((await testOf(ch.id)).json.success).toBe(false);
    const row = await rowOf(ch.id);
    expect(row.status).toBe(3);
    expect(JSON.parse(row.other_info).status_reason).toMatch(/^测试失败：Incorrect API key provided/);
  });

  it("never shows the channel's key when the upstream echoes it", async () => {
    const vendor = await startVendorAccountsMock({ apiKey: "sk-the-right-key-000000" });
    try {
      const key = "sk-stored-echoed-key-13579bdf";
      const ch = await seedChannel({ base_url: vendor.url, models: "gpt-4o-mini", key });
      const res = await testOf(ch.id);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toMatch(/^Incorrect API key provided: \*\*\*\./);
      expect(res.text).not.toContain(key);
      const log = await (await getDb()).log.findFirstOrThrow({ where: { channel_id: ch.id } });
      expect(log.content).not.toContain(key);
    } finally {
      await vendor.close();
    }
  });

  it("test all returns at once; its progress is observable and it ends in the background", async () => {
    const a = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    const b = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    const off = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await setChannelStatus(off.id, 2);
    mock.setBehaviour({ stallMs: 150 });
    const res = await call(testAll.GET, "GET", "/api/channel/test", { as: admin });
    expect(res.json.message).toBe("已开始测试所有通道，请刷新页面查看结果");
    expect(res.json.data).toMatchObject({ kind: "test", running: true, total: 2, done: 0 });
    expect((await rowOf(a.id)).test_time).toBe(0);
    const again = await call(testAll.GET, "GET", "/api/channel/test", { as: admin });
    expect(again.json.message).toBe("测试已在进行中");
    expect((await call(jobs.GET, "GET", "/api/channel/jobs", { as: admin })).json.data.test).toMatchObject({ running: true, total: 2 });
    await channelJobDone("test");
    const done = (await call(jobs.GET, "GET", "/api/channel/jobs", { as: admin })).json.data.test;
    expect(done).toMatchObject({ running: false, total: 2, done: 2, succeeded: 2, failed: 0, failures: [] });
    expect(done.finished_at).toBeGreaterThan(0);
    expect((await rowOf(a.id)).test_time).toBeGreaterThan(0);
    expect((await rowOf(b.id)).test_time).toBeGreaterThan(0);
    expect((await rowOf(off.id)).test_time).toBe(0);
    expect(mock.requests).toHaveLength(2);
  });

  it("times a working channel and sends a one-token chat", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    const res = await call(testOne.GET, "GET", `/api/channel/test/${ch.id}`, { as: admin, params: { id: String(ch.id) } });
    expect(res.json.success).toBe(true);
    expect(typeof (res.json as { time?: unknown }).time).toBe("number");
    expect(mock.requests[0]!.json).toMatchObject({ model: "gpt-4o-mini", max_tokens: 1 });
    const row = await (await getDb()).channel.findUniqueOrThrow({ where: { id: ch.id } });
    expect(row.test_time).toBeGreaterThan(0);
  });

  it("re-enables an auto-disabled channel that works again, when AutomaticEnableChannelEnabled", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await setChannelStatus(ch.id, 3, "earlier failure");
    await updateOption("AutomaticEnableChannelEnabled", "false");
    await call(testOne.GET, "GET", `/api/channel/test/${ch.id}`, { as: admin, params: { id: String(ch.id) } });
    const db = await getDb();
    expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(3);
    await updateOption("AutomaticEnableChannelEnabled", "true");
    await call(testOne.GET, "GET", `/api/channel/test/${ch.id}`, { as: admin, params: { id: String(ch.id) } });
    expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(1);
    expect((await db.ability.findMany({ where: { channel_id: ch.id } })).every((a) => a.enabled)).toBe(true);
  });

  it("never re-enables a channel an admin disabled by hand", async () => {
    await updateOption("AutomaticEnableChannelEnabled", "true");
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await setChannelStatus(ch.id, 2);
    await call(testOne.GET, "GET", `/api/channel/test/${ch.id}`, { as: admin, params: { id: String(ch.id) } });
    expect((await (await getDb()).channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(2);
  });

  it("test all disables a dead channel and leaves a live one", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    const dead = await startOpenAIMock({ behaviour: { failStatus: 401 } });
    const live = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    const broken = await seedChannel({ base_url: dead.url, models: "gpt-4o-mini" });
    const res = await call(testAll.GET, "GET", "/api/channel/test", { as: admin });
    expect(res.json.success).toBe(true);
    await channelJobDone("test");
    const db = await getDb();
    expect((await db.channel.findUniqueOrThrow({ where: { id: live.id } })).status).toBe(1);
    const row = await db.channel.findUniqueOrThrow({ where: { id: broken.id } });
    expect(row.status).toBe(3);
    expect(JSON.parse(row.other_info).status_reason).toContain("测试失败");
    const job = (await call(jobs.GET, "GET", "/api/channel/jobs", { as: admin })).json.data.test;
    expect(job).toMatchObject({ total: 2, done: 2, succeeded: 1, failed: 1, disabled: 1 });
    expect(job.failures).toEqual([{ channel_id: broken.id, message: expect.stringContaining("Incorrect API key provided") }]);
    await dead.close();
  });

  it("is refused to ordinary users", async () => {
    const user = await createUser({ username: "tester-user" });
    const res = await call(testAll.GET, "GET", "/api/channel/test", { as: user });
    expect(res.status).toBe(403);
  });
});
