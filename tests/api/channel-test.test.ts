// Channel tests record response times and drive auto enable/disable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { setChannelStatus } from "@/lib/channels/routing";
import { channelJobDone } from "@/lib/channels/jobs";
import * as testOne from "@/app/api/channel/test/[id]/route";
import * as testAll from "@/app/api/channel/test/route";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel } from "@/tests/helpers/relay";
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
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
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
    await dead.close();
  });

  it("is refused to ordinary users", async () => {
    const user = await createUser({ username: "tester-user" });
    const res = await call(testAll.GET, "GET", "/api/channel/test", { as: user });
    expect(res.status).toBe(403);
  });
});
