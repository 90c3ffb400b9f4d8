// The periodic test of all channels (ChannelTestInterval): off at 0, one run per interval, and with
// several instances on one database exactly one of them runs each interval (the lease row).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { openDirectDb } from "@/lib/db/direct";
import type { DbKind } from "@/lib/db/types";
import { listOptions, updateOption } from "@/lib/options";
import { channelJobDone } from "@/lib/channels/jobs";
import { CHANNEL_TEST_LEASE_KEY, channelTestSlot, claimChannelTestSlot, runChannelTestTick } from "@/lib/relay/probe/schedule";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel } from "@/tests/helpers/relay";
import { createTestDatabase } from "@/tests/helpers/databases";
import { call, createUser } from "@/tests/helpers/api";
import * as optionRoute from "@/app/api/option/route";

describe("scheduled channel test", () => {
  let mock: OpenAIMock;
  let root: { id: number; cookie: string };
  beforeAll(async () => {
    mock = await startOpenAIMock();
    root = await createUser({ username: "sched-root", role: 100 });
  });
  afterAll(async () => {
    await updateOption("ChannelTestInterval", "0");
    await mock.close();
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
  });

  it("is set on the operation tab's route and validated", async () => {
    const put = (value: string) => call(optionRoute.PUT, "PUT", "/api/option/", { as: root, body: { key: "ChannelTestInterval", value } });
    expect((await put("-1")).json).toMatchObject({ success: false, message: "ChannelTestInterval 的值不能小于 0" });
    expect((await put("30")).json.success).toBe(true);
    expect((await listOptions()).find((o) => o.key === "ChannelTestInterval")?.value).toBe("30");
    // The lease row is no option: never listed.
    expect((await listOptions()).some((o) => (o.key as string) === CHANNEL_TEST_LEASE_KEY)).toBe(false);
  });

  it("does nothing while the interval is 0", async () => {
    await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await updateOption("ChannelTestInterval", "0");
    expect(await runChannelTestTick(10_000_000)).toBe(false);
    expect(mock.requests).toHaveLength(0);
  });

  it("tests every channel once per interval, as the first super admin", async () => {
    const ch = await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await updateOption("ChannelTestInterval", "10");
    const t0 = 20_000_000 * 60; // a minute far ahead of any earlier slot of this file
    expect(await runChannelTestTick(t0)).toBe(true);
    await channelJobDone("test");
    expect(mock.requests).toHaveLength(1);
    const db = await getDb();
    expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).test_time).toBeGreaterThan(0);
    const firstRoot = await db.user.findFirstOrThrow({ where: { role: { gte: 100 }, deleted_at: null }, orderBy: { id: "asc" } });
    expect(await db.log.count({ where: { channel_id: ch.id, token_name: "模型测试", user_id: firstRoot.id } })).toBe(1);

    // Later in the same 10-minute slot: nothing; in the next slot: again.
    expect(await runChannelTestTick(t0 + 9 * 60)).toBe(false);
    expect(await runChannelTestTick(t0 + 10 * 60)).toBe(true);
    await channelJobDone("test");
    expect(mock.requests).toHaveLength(2);
  });

  it("a new interval applies at the next tick", async () => {
    await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
    await updateOption("ChannelTestInterval", "1");
    const t = 30_000_000 * 60;
    expect(await runChannelTestTick(t)).toBe(true);
    await channelJobDone("test");
    expect(await runChannelTestTick(t + 60)).toBe(true);
    await channelJobDone("test");
    expect(mock.requests).toHaveLength(2);
  });

  for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
    it(`lets one of several instances win each slot (${kind})`, async () => {
      const test = await createTestDatabase(kind);
      // Four "instances": four connections to one database, racing for the same slots.
      const instances = [test.direct, ...(await Promise.all([1, 2, 3].map(() => openDirectDb(kind, test.dsn))))];
      try {
        for (const slot of [channelTestSlot(1_800_000_000, 5), channelTestSlot(1_800_000_000, 5) + 1]) {
          const wins = await Promise.all(instances.map((db) => claimChannelTestSlot(slot, db)));
          expect(wins.filter(Boolean)).toHaveLength(1);
          // Late claims of the same or an earlier slot lose.
          expect(await claimChannelTestSlot(slot, instances[0])).toBe(false);
          expect(await claimChannelTestSlot(slot - 1, instances[1])).toBe(false);
        }
      } finally {
        for (const db of instances.slice(1)) await db.close();
        await test.drop();
      }
    });
  }
});
